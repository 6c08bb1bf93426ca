import type { Db } from '../db/sqlite.ts';
import { AppError, invalid } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import { MAX_TAGS } from '../posts/schemas.ts';
import type { PostService } from '../posts/service.ts';
import type { DeletionRequestRecord, DeletionRequestRepository, RequestStatus } from './deletion-request-repository.ts';

/**
 * Where a merge moves the merged post's favorites to the post it is merged into (docs/decisions.md §15).
 * The favorites feature implements it and src/roles/wiring.ts hands it to the ModerationService.
 * It runs inside the merge's unit of work, before the merged post is deleted (so before any cascade
 * could drop its favorites).
 */
export interface FavoritesMover {
  moveFavorites(tx: WriteTransaction, fromPostId: string, intoPostId: string): void;
}

/** docs/decisions.md §18: comments and votes follow a merge too (src/comments, src/votes implement it). */
export interface ConversationMover {
  moveConversation(tx: WriteTransaction, fromPostId: string, intoPostId: string): void;
}

/**
 * Where a merge puts `into` in the merged post's place in its pools (docs/decisions.md §19): the pools
 * feature implements it; it runs inside the merge's unit of work, before the merged post is deleted.
 */
export interface PoolsMover {
  replaceMergedPost(tx: WriteTransaction, from: PostRecord, into: PostRecord, by: AuthUser): void;
}

export interface ModerationDeps {
  db: Db;
  requests: DeletionRequestRepository;
  /** a merge and an approval delete and edit posts: one unit of work each */
  unitOfWork: UnitOfWork;
  /** the post writes (editWithin/deleteWithin) */
  postService: PostService;
  /** reads only: the posts a list of requests shows */
  posts: PostRepository;
  /** the favorites hook; absent until favorites exist */
  favorites?: FavoritesMover;
  /** the comments' and votes' hooks */
  conversation?: ConversationMover[];
  /** the pools hook; absent until pools exist */
  pools?: PoolsMover;
}

/** A request with its post, when the post still exists. */
export interface DeletionRequestWithPost {
  request: DeletionRequestRecord;
  post: PostRecord | null;
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'not_found';

/** Deletion requests and merging duplicates (docs/decisions.md §15). Routes check the bits; this checks the rest. */
export class ModerationService {
  constructor(private readonly deps: ModerationDeps) {}

  file(postRef: string, reason: string, requester: AuthUser): DeletionRequestWithPost {
    const { db, requests, postService } = this.deps;
    return db
      .transaction(() => {
        const post = postService.find(postRef);
        const id = requests.insert({
          postId: post.id,
          requesterId: requester.id,
          requesterName: requester.name,
          reason,
          createdAt: new Date().toISOString(),
        });
        if (id === undefined)
          throw new AppError('conflict', 'you already have a pending deletion request for this post');
        return { request: requests.get(id)!, post };
      })
      .immediate();
  }

  /** Holders of 0x2000 see every request; everyone else only their own. */
  list(
    viewer: AuthUser,
    seesAll: boolean,
    status: RequestStatus | undefined,
    offset: number,
    limit: number,
  ): { count: number; data: DeletionRequestWithPost[] } {
    const { count, rows } = this.deps.requests.list(
      { status, requesterId: seesAll ? undefined : viewer.id },
      offset,
      limit,
    );
    const posts = new Map(this.deps.posts.getManyById([...new Set(rows.map((r) => r.postId))]).map((p) => [p.id, p]));
    return { count, data: rows.map((request) => ({ request, post: posts.get(request.postId) ?? null })) };
  }

  /**
   * Deletes the post and closes the request, in one transaction; every other pending request for
   * the post closes as moot. A post already gone (deleted directly, merged away) closes it as moot.
   */
  async approve(id: number, moderator: AuthUser): Promise<DeletionRequestWithPost> {
    const { unitOfWork, requests, postService } = this.deps;
    await unitOfWork.write((tx) => {
      const request = this.pending(id);
      const now = new Date().toISOString();
      let deleted: { row: OutboxRow } | undefined;
      try {
        deleted = postService.deleteWithin(tx, request.postId, moderator);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      requests.decide(id, deleted ? 'approved' : 'moot', moderator, now);
      requests.closeMootFor(request.postId, moderator, now);
    });
    return { request: requests.get(id)!, post: null };
  }

  dismiss(id: number, moderator: AuthUser): DeletionRequestWithPost {
    return this.close(id, 'dismissed', moderator, () => {});
  }

  /** Only its requester may revoke a request (403 for anyone else, moderators included). */
  revoke(id: number, requester: AuthUser): DeletionRequestWithPost {
    return this.close(id, 'revoked', requester, (r) => {
      if (r.requesterId !== requester.id)
        throw new AppError('forbidden', 'only the requester may revoke a deletion request');
    });
  }

  /**
   * Merges post `ref` into `intoRef` (docs/decisions.md §15) in ONE transaction, through the posts' own
   * write steps (so through the kernel's commit step): `into` gains the union of both posts' tags
   * (a version and an update event), favorites move, pending deletion requests of the merged post
   * close as moot, then the merged post is deleted (a delete event). Two merges of the same pair
   * at once: transactions run one after another, and the second finds the post gone (404).
   */
  async merge(ref: string, intoRef: string, moderator: AuthUser): Promise<PostRecord> {
    const { unitOfWork, requests, postService, favorites, conversation = [], pools } = this.deps;
    const edited = await unitOfWork.write((tx) => {
      const from = postService.find(ref);
      const into = postService.find(intoRef);
      if (from.id === into.id) throw invalid(['into'], 'a post cannot be merged into itself');
      const tags = [...new Set([...into.tags, ...from.tags].map((t) => t.name))];
      if (tags.length > MAX_TAGS)
        throw invalid(['into'], `the merged post would carry ${tags.length} tags; at most ${MAX_TAGS}`);
      // docs/decisions.md §22: the merged post's origins become the kept one's (before its edit, which records them).
      this.deps.posts.origins.move(from.seq, into.seq);
      const result = postService.editWithin(tx, into.id, { tags }, moderator);
      favorites?.moveFavorites(tx, from.id, into.id);
      for (const mover of conversation) mover.moveConversation(tx, from.id, into.id);
      pools?.replaceMergedPost(tx, from, into, moderator);
      requests.closeMootFor(from.id, moderator, new Date().toISOString());
      postService.deleteWithin(tx, from.id, moderator);
      return result;
    });
    return this.deps.posts.getById(edited.after.id) ?? edited.after;
  }

  private close(
    id: number,
    status: 'dismissed' | 'revoked',
    by: AuthUser,
    check: (r: DeletionRequestRecord) => void,
  ): DeletionRequestWithPost {
    const { db, requests, posts } = this.deps;
    return db
      .transaction(() => {
        const request = this.pending(id, check);
        requests.decide(request.id, status, by, new Date().toISOString());
        return { request: requests.get(id)!, post: posts.getById(request.postId) ?? null };
      })
      .immediate();
  }

  /** The request, or 404; checked (403) before its state is told; a closed one is 409. */
  private pending(id: number, check: (r: DeletionRequestRecord) => void = () => {}): DeletionRequestRecord {
    const request = this.deps.requests.get(id);
    if (!request) throw new AppError('not_found', 'deletion request not found');
    check(request);
    if (request.status !== 'pending') throw new AppError('conflict', `deletion request is already ${request.status}`);
    return request;
  }
}
