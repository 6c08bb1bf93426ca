import { DEFAULT_MAX_IMAGE_BYTES } from '../config.ts';
import type { Db } from '../db/sqlite.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { AppError, invalid } from '../errors.ts';
import type { HashPool } from '../hashing/pool.ts';
import type { AuthUser } from '../http/context.ts';
import type { Logger } from '../log.ts';
import { EXT_BY_MIME } from '../media/store/formats.ts';
import type { ImageStore } from '../media/store/image-store.ts';
import type { PostChanges } from '../kernel/commit.ts';
import { diffMetadata, isEmptyDiff } from '../kernel/diff.ts';
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import type { OutboxRelay } from '../outbox/relay.ts';
import type { UploadedFile } from '../upload/multipart.ts';
import { Mutex } from '../util/mutex.ts';
import { UUID_PATTERN, uuidv7 } from '../util/uuid.ts';
import * as nearDuplicates from './near-duplicates.ts';
import { imageName } from '../kernel/media-names.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import { toDuplicateMatch } from '../kernel/views.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { PostMetadata } from './schemas.ts';
import { imageTooBig, type DirectUploads } from './direct-upload/direct-uploads.ts';

/** Uploads must be smaller than this (docs/decisions.md §4) unless UPLOAD_MAX_BYTES says otherwise. */
export const MAX_IMAGE_BYTES = DEFAULT_MAX_IMAGE_BYTES;

export interface PostServiceDeps {
  db: Db;
  posts: PostRepository;
  /** read by the near-duplicate check (creates not yet indexed) */
  outbox: Outbox;
  /** the commit step every write ends with, inside its transaction */
  changes: PostChanges;
  relay: OutboxRelay;
  postsIndex: PostsIndex;
  hashPool: HashPool;
  images: ImageStore;
  log: Logger;
  /** read at call time: MEDIA_URL for the 409 body, UPLOAD_MAX_BYTES */
  config: { mediaUrl: string; maxImageBytes?: number };
  /** creates naming a direct upload's key (absent: every key is unknown) */
  directUploads?: DirectUploads;
  /** after a new post's response is settled: its robust descriptor is made in the background (docs/decisions.md §16) */
  onCreated?: () => void;
}

export interface CreatePostInput {
  file: UploadedFile;
  metadata: PostMetadata;
  force: boolean;
  /** null for legacy imports */
  uploader: AuthUser | null;
  aggr?: number | null;
}

export class PostService {
  // The last step of the near-duplicate check and the insert are atomic: two identical uploads end as
  // one 201 and one 409 (see near-duplicates.ts for why the index lookup can stay outside).
  private readonly uploadLock = new Mutex();

  constructor(private readonly deps: PostServiceDeps) {}

  /** By UUID or by number; anything else is simply not found. */
  find(ref: string): PostRecord {
    const { posts } = this.deps;
    const post = UUID_PATTERN.test(ref) ? posts.getById(ref.toLowerCase()) : /^[1-9]\d{0,15}$/.test(ref) ? posts.getBySeq(Number(ref)) : undefined;
    if (!post) throw new AppError('not_found', 'post not found');
    return post;
  }

  list(offset: number, limit: number): { count: number; posts: PostRecord[] } {
    return { count: this.deps.posts.count(), posts: limit === 0 ? [] : this.deps.posts.list(offset, limit) };
  }

  async create(input: CreatePostInput): Promise<PostRecord> {
    const { file } = input;
    const max = this.deps.config.maxImageBytes ?? MAX_IMAGE_BYTES;
    if (file.size >= max) throw imageTooBig(['image'], file.size, max);
    if (file.size === 0) throw invalid(['image'], 'image is empty');
    const declared = file.mimetype?.toLowerCase().split(';')[0].trim() ?? '';
    if (declared && !declared.startsWith('image/') && declared !== 'application/octet-stream')
      throw invalid(['image'], `image part has content type ${declared}; expected image/*`, 'invalid_type', 'image/*', declared);
    const info = await this.deps.hashPool.analyse(file.path);
    // The declared type names the extension unless the bytes are another accepted format.
    const declaredExt = EXT_BY_MIME[declared];
    const ext = declaredExt && declaredExt === info.ext ? declaredExt : info.ext;

    const id = uuidv7();
    const image = imageName({ id, ext });
    // Always consult the index, even with force: an upload while it is unreachable is 503 and stores nothing.
    const lookup = await nearDuplicates.lookUp(this.deps.postsIndex, this.deps.outbox, this.deps.posts, info.hash);
    const refuseDuplicates = () => {
      const matches = nearDuplicates.since(lookup, this.deps.posts, info.hash);
      if (matches.length > 0 && !input.force) {
        const existing = this.deps.posts.getManyById(matches.map((m) => m.postId));
        if (existing.length > 0) {
          const body = existing.map((p) => toDuplicateMatch(p, this.deps.config.mediaUrl));
          throw new AppError('duplicate_image', 'a near-duplicate image exists', body);
        }
      }
    };
    // Checked once before the file goes to the store (no write for a known duplicate) and again
    // under the lock; the store write stays outside the lock, so a slow store never serialises
    // uploads. A store failure is a 503 with nothing committed (adopt undoes its writes).
    refuseDuplicates();
    await this.deps.images.adopt(file.path, image, id);
    let committed;
    try {
      committed = await this.uploadLock.run(async () => {
        // Only SQLite from here to the commit: the lock is held for a millisecond, not a store or index round trip.
        refuseDuplicates();
        return this.deps.db.transaction(() => {
          const now = new Date().toISOString();
          const seq = this.deps.posts.insert({
            id,
            text: input.metadata.text ?? '',
            rating: input.metadata.rating ?? 'none',
            tags: input.metadata.tags ?? [],
            ext,
            mime: info.mime,
            width: info.width,
            height: info.height,
            hash: info.hash,
            uploaderId: input.uploader?.id ?? null,
            aggr: input.aggr ?? null,
            createdAt: now,
          });
          this.deps.images.settle(image);
          const created = this.deps.posts.getBySeq(seq)!;
          // Queues the thumbnail job too: thumbnails are made after the response (docs/decisions.md §13), never lost.
          return { row: this.deps.changes.created(created, input.uploader), created };
        }).immediate();
      });
    } catch (err) {
      // Nothing committed: the objects go (or stay journaled for the sweep when the store is down).
      await this.deps.images.discard(image);
      throw err;
    }
    await this.deps.relay.applyNow(committed.row);
    this.deps.onCreated?.();
    // As for update: a delete that raced the index write does not undo this answer.
    return this.deps.posts.getById(id) ?? committed.created;
  }

  /**
   * A create naming a direct upload's key (issue 26): the user's object is claimed and read, then
   * created exactly as a multipart upload; the uploaded object goes once the post committed, and
   * stays claimable (until it expires) when the create failed.
   */
  async createFromUpload(input: Omit<CreatePostInput, 'file' | 'uploader'> & { key: string; uploader: AuthUser }): Promise<PostRecord> {
    if (!this.deps.directUploads) throw invalid(['key'], 'key names no upload of yours');
    const claimed = await this.deps.directUploads.claim(input.key, input.uploader);
    let postId: string | undefined;
    try {
      const post = await this.create({ ...input, file: claimed.file });
      postId = post.id;
      return post;
    } finally {
      await claimed.finish(postId);
    }
  }

  /** Replaces only the fields sent; `tags`, when sent, is the whole new set. Fires an update event either way. */
  async update(ref: string, patch: PostMetadata, initiator: AuthUser): Promise<PostRecord> {
    const { row, after } = this.deps.db.transaction(() => this.editWithin(ref, patch, initiator)).immediate();
    // Stored either way; if the index is down the relay brings the change over when it returns.
    await this.deps.relay.applyNow(row);
    // A delete may have committed while this waited for the index: the edit still happened, so it
    // answers with the post as the edit left it.
    return this.deps.posts.getById(row.postId) ?? after;
  }

  /**
   * The edit's writes and its commit step, inside the caller's transaction: for changes that edit
   * and delete posts at once (a merge, src/moderation/). The caller then calls `settle`.
   */
  editWithin(ref: string, patch: PostMetadata, initiator: AuthUser): { row: OutboxRow; after: PostRecord } {
    const { posts, changes } = this.deps;
    const before = this.find(ref);
    const oldTags = before.tags.map((t) => t.name);
    // Tags as they will be stored (aliases resolved, implications added), so the diff is the real one.
    const wanted = { text: patch.text ?? before.text, rating: patch.rating ?? before.rating, tags: patch.tags ? posts.resolveTags(patch.tags) : oldTags };
    const diff = diffMetadata({ text: before.text, rating: before.rating, tags: oldTags }, wanted);
    // Nothing changed: no new post version, but the update event still fires (below).
    if (!isEmptyDiff(diff)) {
      posts.updateFields(before.seq, { text: wanted.text, rating: wanted.rating, updatedAt: new Date().toISOString() });
      if (diff.tags) posts.setTags(before.seq, wanted.tags);
    }
    const after = posts.getBySeq(before.seq)!;
    return { row: changes.updated(before, after, initiator), after };
  }

  async delete(ref: string, initiator: AuthUser): Promise<void> {
    const done = this.deps.db.transaction(() => this.deleteWithin(ref, initiator)).immediate();
    await this.settle([done.row], [done.image]);
  }

  /** The delete's writes and its commit step, inside the caller's transaction (see editWithin). */
  deleteWithin(ref: string, initiator: AuthUser): { row: OutboxRow; image: string; post: PostRecord } {
    const { posts, changes, images } = this.deps;
    const post = this.find(ref);
    posts.delete(post.seq);
    images.markForRemoval(imageName(post), post.id);
    return { row: changes.deleted(post, initiator), image: imageName(post), post };
  }

  /** After a commit made of editWithin/deleteWithin: removes the deleted files, brings the index in step. */
  async settle(rows: OutboxRow[], removedImages: string[]): Promise<void> {
    // A store that fails now leaves the objects journaled: the background sweep retries the delete.
    for (const image of removedImages) {
      const failed = await this.deps.images.remove(image);
      if (failed > 0) this.deps.log.warn('could not delete a deleted post\'s files yet; the sweep retries', { image, failed });
    }
    for (const row of rows) await this.deps.relay.applyNow(row);
  }
}
