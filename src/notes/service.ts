import { nowIso } from '../db/sqlite.ts';
import { AppError, invalid } from '../errors.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import { namesFor, type UserNames } from '../kernel/user-names.ts';
import type { Box, NoteRepository, NoteRow } from './note-repository.ts';
import type { NoteVersionView, NoteView } from './schemas.ts';

export interface NoteDeps {
  postRepository: PostRepository;
  notes: NoteRepository;
  unitOfWork: UnitOfWork;
  /** a post by UUID or number, or 404 */
  findPost: (ref: string) => PostRecord;
  users: UserNames;
}

export interface NoteChangeInput extends Partial<Box> {
  body?: string;
  version?: number;
}

/**
 * Notes over a post's image (docs/decisions.md §23); every write needs 0x4 (the routes check it). A note
 * is no post edit: no post version, no webhook. The post's note count and last note time (kept by
 * trigger) are in its search document (hasNotes, order:note), so each write raises the post's index
 * version and records a 'reindex' change in the same unit of work, as a comment does.
 */
export class NoteService {
  constructor(private readonly deps: NoteDeps) {}

  ofPost(ref: string): NoteView[] {
    return this.views(this.deps.notes.ofPost(this.deps.findPost(ref).seq));
  }

  async add(authorId: number, ref: string, box: Box, body: string): Promise<NoteView> {
    const id = await this.deps.unitOfWork.write((tx) => {
      const post = this.deps.findPost(ref);
      inside(post, box);
      const added = this.deps.notes.insert(post.seq, box, body, authorId, nowIso());
      this.reindex(tx, post.seq);
      return added;
    });
    return this.view(this.get(id));
  }

  /**
   * Notes an import brought (docs/decisions.md §22): by nobody, only onto a post that has none yet (so an
   * import run again adds none); a box outside the image, or a body that is not 1–10,000 characters, is
   * left out. Returns how many were added.
   */
  async addImported(postSeq: number, notes: readonly (Box & { body: string })[]): Promise<number> {
    return this.deps.unitOfWork.write((tx) => {
      const post = this.deps.postRepository.getBySeq(postSeq);
      if (!post || this.deps.notes.ofPost(postSeq).length > 0) return 0;
      const at = nowIso();
      const fit = notes.filter(
        (n) =>
          [n.x, n.y, n.width, n.height].every((v) => Number.isInteger(v) && v >= 0) &&
          n.width > 0 &&
          n.height > 0 &&
          n.x + n.width <= post.width &&
          n.y + n.height <= post.height &&
          n.body.length >= 1 &&
          n.body.length <= 10_000,
      );
      for (const n of fit) this.deps.notes.insert(postSeq, n, n.body, null, at);
      if (fit.length > 0) this.reindex(tx, postSeq);
      return fit.length;
    });
  }

  async change(editorId: number, id: number, input: NoteChangeInput): Promise<NoteView> {
    await this.deps.unitOfWork.write((tx) => {
      const note = this.get(id);
      if (input.version !== undefined && input.version !== note.version)
        throw new AppError('conflict', `stale version ${input.version}: the current version is ${note.version}`);
      const box = {
        x: input.x ?? note.x,
        y: input.y ?? note.y,
        width: input.width ?? note.width,
        height: input.height ?? note.height,
      };
      this.write(tx, note, box, input.body ?? note.body, editorId);
    });
    return this.view(this.get(id));
  }

  /** A new version with an earlier one's box and body. */
  async revert(editorId: number, id: number, version: number): Promise<NoteView> {
    await this.deps.unitOfWork.write((tx) => {
      const note = this.get(id);
      const old = this.deps.notes.versions(id).find((v) => v.version === version);
      if (!old) throw new AppError('not_found', `this note has no version ${version}`);
      this.write(tx, note, old, old.body, editorId);
    });
    return this.view(this.get(id));
  }

  async remove(id: number): Promise<void> {
    await this.deps.unitOfWork.write((tx) => {
      const note = this.get(id);
      this.deps.notes.delete(id);
      this.reindex(tx, note.postSeq);
    });
  }

  history(id: number): NoteVersionView[] {
    const rows = this.deps.notes.versions(this.get(id).id);
    const names = namesFor(
      this.deps.users,
      rows.map((r) => r.editorId),
    );
    return rows.map((r) => ({
      version: r.version,
      x: r.x,
      y: r.y,
      width: r.width,
      height: r.height,
      body: r.body,
      createdAt: r.createdAt,
      editor: user(r.editorId, names),
    }));
  }

  /** The notes of several posts (the Danbooru API's only=notes). */
  ofPosts(seqs: readonly number[]): Map<number, NoteRow[]> {
    return this.deps.notes.ofPosts(seqs);
  }

  /**
   * The merge hook (src/moderation/service.ts, ConversationMover): inside the merge's unit of work,
   * before the merged post is deleted, its notes move to `into` with their boxes.
   */
  moveConversation(tx: WriteTransaction, fromPostId: string, intoPostId: string): void {
    const { postRepository: posts } = this.deps;
    const from = posts.getById(fromPostId);
    const into = posts.getById(intoPostId);
    if (!from || !into) return;
    if (this.deps.notes.move(from.seq, into.seq) > 0) this.reindex(tx, into.seq);
  }

  private write(tx: WriteTransaction, note: NoteRow, box: Box, body: string, editorId: number): void {
    const post = this.deps.postRepository.getBySeq(note.postSeq);
    if (!post) throw new AppError('not_found', 'note not found');
    inside(post, box);
    this.deps.notes.update(note, box, body, editorId, nowIso());
    this.reindex(tx, note.postSeq);
  }

  private get(id: number): NoteRow {
    const note = this.deps.notes.get(id);
    if (!note) throw new AppError('not_found', 'note not found');
    return note;
  }

  private reindex(tx: WriteTransaction, seq: number): void {
    const { postRepository: posts } = this.deps;
    posts.bumpVersion(seq);
    const post = posts.getBySeq(seq);
    if (post) tx.reindexed(post);
  }

  private view(row: NoteRow): NoteView {
    return this.views([row])[0];
  }

  private views(rows: NoteRow[]): NoteView[] {
    const names = namesFor(
      this.deps.users,
      rows.map((r) => r.authorId),
    );
    return rows.map((r) => ({
      id: r.id,
      postId: r.postId,
      x: r.x,
      y: r.y,
      width: r.width,
      height: r.height,
      body: r.body,
      version: r.version,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      author: user(r.authorId, names),
    }));
  }
}

/** A box must lie inside the image (400 otherwise). */
function inside(post: PostRecord, box: Box): void {
  if (box.x + box.width > post.width || box.y + box.height > post.height)
    throw invalid(
      ['width'],
      `the box must lie inside the image (${post.width}x${post.height} pixels)`,
      'too_big',
      `x + width <= ${post.width} and y + height <= ${post.height}`,
      `${box.x + box.width}x${box.y + box.height}`,
    );
}

function user(id: number | null, names: Map<number, string>) {
  const name = id === null ? undefined : names.get(id);
  return id !== null && name !== undefined ? { id, name } : null;
}
