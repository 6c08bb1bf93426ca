import { nowIso } from '../db/sqlite.ts';
import type { VoteRepository } from './vote-repository.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import type { VoteValue } from './vote-repository.ts';
import type { MyVote, VoteResult } from './vote-shapes.ts';

export interface VoteDeps {
  postRepository: PostRepository;
  /** the votes table, written inside the unit of work's transaction */
  votes: VoteRepository;
  unitOfWork: UnitOfWork;
  /** a post by UUID or number, or 404 (the posts feature's rule) */
  findPost: (ref: string) => PostRecord;
}

/**
 * Votes (docs/decisions.md §18): one per account and post, replaced by a new one. A vote is no post edit:
 * no version, no webhook. The counts are kept by SQLite triggers in the vote's own transaction; the
 * search document follows through the kernel's 'reindex' change with the post's index version raised,
 * as favorites do (src/favorites/service.ts).
 */
export class VoteService {
  constructor(private readonly deps: VoteDeps) {}

  async vote(userId: number, ref: string, value: VoteValue): Promise<VoteResult> {
    const { unitOfWork, postRepository: posts } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    const post = await unitOfWork.write((tx) => {
      if (this.deps.votes.put(userId, seq, value, nowIso())) this.reindex(tx, seq);
      return posts.getBySeq(seq)!;
    });
    return { score: post.upvotes - post.downvotes, upvotes: post.upvotes, downvotes: post.downvotes, value };
  }

  /** Idempotent: taking back a vote that is not there is no error. */
  async unvote(userId: number, ref: string): Promise<void> {
    const { unitOfWork } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    await unitOfWork.write((tx) => {
      if (this.deps.votes.remove(userId, seq)) this.reindex(tx, seq);
    });
  }

  /** The caller's vote on the post, 0 when none. */
  valueOf(userId: number, ref: string): MyVote {
    return { value: this.deps.votes.valueOf(userId, this.deps.findPost(ref).seq) };
  }

  /**
   * The merge hook (src/moderation/service.ts, ConversationMover): inside the merge's unit of work, before
   * the merged post is deleted, its votes move to `into`; an account that voted on both keeps its vote on `into`.
   */
  moveConversation(tx: WriteTransaction, fromPostId: string, intoPostId: string): void {
    const { postRepository: posts } = this.deps;
    const from = posts.getById(fromPostId);
    const into = posts.getById(intoPostId);
    if (!from || !into || from.upvotes + from.downvotes === 0) return;
    this.deps.votes.move(from.seq, into.seq);
    this.reindex(tx, into.seq);
  }

  private reindex(tx: WriteTransaction, seq: number): void {
    const { postRepository: posts } = this.deps;
    posts.bumpVersion(seq);
    const post = posts.getBySeq(seq);
    if (post) tx.reindexed(post);
  }
}
