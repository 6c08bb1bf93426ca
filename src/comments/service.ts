import { nowIso } from '../db/sqlite.ts';
import type { CommentRepository } from './comment-repository.ts';
import { AppError } from '../errors.ts';
import type { CommentRow } from './comment-repository.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import { namesFor, type UserNames } from '../kernel/user-names.ts';
import { CommentPace } from './pace.ts';
import type { CommentPage, CommentView } from './schemas.ts';

export type { CommentView } from './schemas.ts';

export interface CommentDeps {
  postRepository: PostRepository;
  /** the comments table, written inside the unit of work's transaction */
  comments: CommentRepository;
  unitOfWork: UnitOfWork;
  /** a post by UUID or number, or 404 (the posts feature's rule) */
  findPost: (ref: string) => PostRecord;
  /** authors' names (the users table is the accounts') */
  users: UserNames;
  /** a username's id, for `GET /api/comment?author` */
  userIdOf: (name: string) => number | undefined;
  pace?: CommentPace;
}

/** Who acts on a comment, and what their permission lets them do (the routes read the bits). */
export interface CommentActor {
  id: number;
  /** holds 0x4000: may write comments (and change their own) */
  mayComment: boolean;
  /** holds 0x2000: may delete anyone's */
  moderates: boolean;
}

/**
 * Comments (docs/decisions.md §18). A comment is no post edit: no version, no webhook. The post's count
 * (a trigger) and its commenters (the search document's `commented_by`) change, so each write raises
 * the post's index version and records a 'reindex' change, as a favorite does (src/favorites/service.ts).
 */
export class CommentService {
  private readonly pace: CommentPace;

  constructor(private readonly deps: CommentDeps) {
    this.pace = deps.pace ?? new CommentPace();
  }

  async add(author: CommentActor, ref: string, body: string): Promise<CommentView> {
    const { unitOfWork } = this.deps;
    if (!author.mayComment) throw new AppError('forbidden', 'permission denied');
    const seq = this.deps.findPost(ref).seq;
    const giveBack = this.pace.take(author.id);
    let id: number;
    try {
      id = await unitOfWork.write((tx) => {
        const added = this.deps.comments.insert(seq, author.id, body, nowIso());
        this.reindex(tx, seq);
        return added;
      });
    } catch (err) {
      giveBack();
      throw err;
    }
    return this.view(this.get(id));
  }

  /**
   * Comments an import brought for a post already here (docs/decisions.md §22): by nobody, with their
   * authors' names there; one that was brought before is left alone. Returns how many were added.
   */
  async addImported(
    seq: number,
    comments: readonly { key: string; author: string | null; body: string; createdAt: string }[],
  ): Promise<number> {
    return this.deps.unitOfWork.write((tx) => {
      const added = comments.filter((c) => this.deps.comments.insertImported(seq, c)).length;
      if (added > 0) this.reindex(tx, seq);
      return added;
    });
  }

  /** A post's comments, oldest first; 404 for an unknown post. */
  ofPost(ref: string, offset: number, limit: number): CommentPage {
    const post = this.deps.findPost(ref);
    const rows = limit === 0 ? [] : this.deps.comments.ofPost(post.seq, offset, limit);
    return { count: post.comments, data: this.views(rows) };
  }

  /** The newest comments site-wide, or one author's (an unknown name has none). */
  newest(authorName: string | undefined, offset: number, limit: number): CommentPage {
    const comments = this.deps.comments;
    const authorId = authorName === undefined ? undefined : this.deps.userIdOf(authorName);
    if (authorName !== undefined && authorId === undefined) return { count: 0, data: [] };
    const rows = limit === 0 ? [] : comments.newest(authorId, offset, limit);
    return { count: comments.count(authorId), data: this.views(rows) };
  }

  /** By its author only (who must still hold the comment bit); `edited` becomes true. */
  async edit(actor: CommentActor, id: number, body: string): Promise<CommentView> {
    const { unitOfWork } = this.deps;
    await unitOfWork.write(() => {
      const comment = this.get(id);
      if (comment.authorId !== actor.id) throw new AppError('forbidden', 'only its author may edit a comment');
      if (!actor.mayComment) throw new AppError('forbidden', 'permission denied');
      this.deps.comments.setBody(id, body, nowIso());
    });
    return this.view(this.get(id));
  }

  /** By its author or a moderator (0x2000). */
  async remove(actor: CommentActor, id: number): Promise<void> {
    const { unitOfWork } = this.deps;
    await unitOfWork.write((tx) => {
      const comment = this.get(id);
      if (comment.authorId !== actor.id && !actor.moderates)
        throw new AppError('forbidden', 'only its author or a moderator may delete a comment');
      this.deps.comments.delete(id);
      this.reindex(tx, comment.postSeq);
    });
  }

  /**
   * The merge hook (src/moderation/service.ts, ConversationMover): inside the merge's unit of work,
   * before the merged post is deleted, its comments move to `into`.
   */
  moveConversation(tx: WriteTransaction, fromPostId: string, intoPostId: string): void {
    const { postRepository: posts } = this.deps;
    const from = posts.getById(fromPostId);
    const into = posts.getById(intoPostId);
    if (!from || !into || from.comments === 0) return;
    this.deps.comments.move(from.seq, into.seq);
    this.reindex(tx, into.seq);
  }

  private get(id: number): CommentRow {
    const comment = this.deps.comments.get(id);
    if (!comment) throw new AppError('not_found', 'comment not found');
    return comment;
  }

  private reindex(tx: WriteTransaction, seq: number): void {
    const { postRepository: posts } = this.deps;
    posts.bumpVersion(seq);
    const post = posts.getBySeq(seq);
    if (post) tx.reindexed(post);
  }

  private view(row: CommentRow): CommentView {
    return this.views([row])[0];
  }

  private views(rows: CommentRow[]): CommentView[] {
    const names = namesFor(
      this.deps.users,
      rows.map((r) => r.authorId),
    );
    return rows.map((r) => {
      const name = r.authorId === null ? undefined : names.get(r.authorId);
      return {
        id: r.id,
        postId: r.postId,
        author: r.authorId !== null && name !== undefined ? { id: r.authorId, name } : null,
        body: r.body,
        createdAt: r.createdAt,
        updatedAt: r.updatedAt,
        edited: r.edited,
        ...(r.originAuthor !== null ? { originAuthor: r.originAuthor } : {}),
      };
    });
  }
}
