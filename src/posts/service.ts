import { fileMd5 } from '../util/file-md5.ts';
import { DEFAULT_MAX_IMAGE_BYTES } from '../config.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { AppError, invalid } from '../errors.ts';
import type { HashPool, ImageInfo } from '../hashing/pool.ts';
import type { AuthUser } from '../http/context.ts';
import type { Logger } from '../log.ts';
import { EXT_BY_MIME } from '../media-store/formats.ts';
import type { ImageStore, TempThumbnail } from '../media-store/image-store.ts';
import { diffVersions, isEmptyDiff, versionedFieldsOf } from '../kernel/diff.ts';
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import type { UploadedFile } from '../http/multipart.ts';
import { UUID_PATTERN, uuidv7 } from '../util/uuid.ts';
import * as nearDuplicates from './near-duplicates.ts';
import { imageName } from '../kernel/media-names.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import { toDuplicateMatch } from '../kernel/views.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { PostMetadata } from './schemas.ts';
import { imageTooBig, type DirectUploads } from './direct-upload/direct-uploads.ts';
import { orphanChildren, resolveParent } from './parents/lineage.ts';
import type { MovingPictures, MovingRead } from '../video/moving-pictures.ts';
import type { PostFrames } from '../video/frame-table.ts';
import { sameMovingPicture } from '../video/frames.ts';

/**
 * What a post's delete does to the pools holding it (docs/decisions.md §19): src/pools implements it and
 * src/roles/wiring.ts hands it over. Runs inside the delete's unit of work, before the post goes.
 */
export interface PoolsOfDeletedPost {
  removeDeletedPost(tx: WriteTransaction, post: PostRecord, initiator: AuthUser): void;
}

const declaredType = (file: UploadedFile): string => file.mimetype?.toLowerCase().split(';')[0].trim() ?? '';

/** Uploads must be smaller than this (docs/decisions.md §4) unless UPLOAD_MAX_BYTES says otherwise. */
export const MAX_IMAGE_BYTES = DEFAULT_MAX_IMAGE_BYTES;

export interface PostServiceDeps {
  posts: PostRepository;
  /** read by the near-duplicate check (creates not yet indexed) */
  outbox: Outbox;
  /** every write runs as one unit of work (its transaction, its commit step, its reactions) */
  unitOfWork: UnitOfWork;
  postsIndex: PostsIndex;
  hashPool: HashPool;
  images: ImageStore;
  log: Logger;
  /** read at call time: MEDIA_URL for the 409 body, UPLOAD_MAX_BYTES, MAX_VIDEO_BYTES */
  config: { mediaUrl: string; maxImageBytes?: number; video?: { maxVideoBytes: number } };
  /** docs/decisions.md §21: animations and videos (absent: still images only) */
  moving?: { pictures: MovingPictures; frames: PostFrames };
  /** creates naming a direct upload's key (absent: every key is unknown) */
  directUploads?: DirectUploads;
  /** the pools hook; absent until pools exist */
  pools?: PoolsOfDeletedPost;
  /**
   * the image work done before the answer (src/thumbnails/with-upload.ts): thumbnails to temp files
   * and the robust descriptor; absent, both are left to the background (a job queued with the post)
   */
  withUpload?: {
    make(file: string): Promise<{ thumbnails: TempThumbnail[]; robust?: Buffer; discard(): void }>;
  };
}

/** Points in the upload path where a test can make the time between two steps wide. */
export interface UploadHooks {
  /** after the image is in the store, right before the unit of work that checks again and inserts */
  beforeInsert?: () => Promise<void>;
}

export interface CreatePostInput {
  file: UploadedFile;
  metadata: PostMetadata;
  force: boolean;
  /** null for legacy imports */
  uploader: AuthUser | null;
  aggr?: number | null;
  /**
   * An import's post (docs/decisions.md §22): its creation date there, and what the import writes in
   * the same unit of work, before the insert (the new tags' categories) and after it (the origin, the
   * comments), so the post and where it came from commit together or not at all.
   */
  imported?: ImportedPart;
}

export interface ImportedPart {
  createdAt: string;
  beforeInsert(): void;
  afterInsert(seq: number): void;
}

export class PostService {
  /** Empty in production; tests set it to widen a race window. */
  readonly hooks: UploadHooks = {};

  constructor(private readonly deps: PostServiceDeps) {}

  /** By UUID or by number; anything else is simply not found. */
  find(ref: string): PostRecord {
    const { posts } = this.deps;
    const post = UUID_PATTERN.test(ref)
      ? posts.getById(ref.toLowerCase())
      : /^[1-9]\d{0,15}$/.test(ref)
        ? posts.getBySeq(Number(ref))
        : undefined;
    if (!post) throw new AppError('not_found', 'post not found');
    return post;
  }

  /** Whether a post of this UUID exists. */
  exists(id: string): boolean {
    return this.deps.posts.exists(id);
  }

  list(offset: number, limit: number): { count: number; posts: PostRecord[] } {
    return { count: this.deps.posts.count(), posts: limit === 0 ? [] : this.deps.posts.list(offset, limit) };
  }

  /**
   * What the file is (docs/decisions.md §21): a moving picture's facts and frame hashes, or a still
   * image's analysis; the byte limits of each. The declared type and the name decide nothing.
   */
  private async readFile(file: UploadedFile): Promise<{ moving?: MovingRead; still?: ImageInfo }> {
    const max = this.deps.config.maxImageBytes ?? MAX_IMAGE_BYTES;
    const moving = this.deps.moving?.pictures;
    const maxVideo = moving ? (this.deps.config.video?.maxVideoBytes ?? max) : max;
    if (file.size >= Math.max(max, maxVideo)) throw imageTooBig(['image'], file.size, Math.max(max, maxVideo));
    if (file.size >= max && !(await moving?.isVideo(file.path))) throw imageTooBig(['image'], file.size, max);
    if (file.size === 0) throw invalid(['image'], 'image is empty');
    const declared = declaredType(file);
    const accepted = moving ? ['image/', 'video/'] : ['image/'];
    if (declared && !accepted.some((a) => declared.startsWith(a)) && declared !== 'application/octet-stream')
      throw invalid(
        ['image'],
        `image part has content type ${declared}; expected ${accepted.map((a) => `${a}*`).join(' or ')}`,
        'invalid_type',
        accepted.map((a) => `${a}*`).join(', '),
        declared,
      );
    const read = await moving?.read(file.path, declared);
    if (read) return { moving: read };
    // docs/decisions.md §24: the eight symmetries' hashes too, stored for the post page's similar list.
    return { still: await this.deps.hashPool.analyse(file.path, { dihedral: true }) };
  }

  /**
   * The near-duplicates that count for the 409 (docs/decisions.md §21): a still image is refused by
   * still images within §4's threshold; a moving picture by moving pictures whose posters are within it
   * and whose spread frames agree (so clips sharing black frames or a title card are not copies).
   */
  private copiesOf(existing: PostRecord[], moving: MovingRead | undefined): PostRecord[] {
    if (!moving) return existing.filter((p) => p.media.kind === 'image');
    const stored = this.deps.moving!.frames.of(existing.map((p) => p.seq));
    return existing.filter((p) => {
      const frames = stored.get(p.seq);
      return frames !== undefined && sameMovingPicture(moving.hashes, frames);
    });
  }

  async create(input: CreatePostInput): Promise<PostRecord> {
    const { file } = input;
    const read = await this.readFile(file);
    const declared = declaredType(file);
    const info = read.moving
      ? { ...read.moving.info, hash: read.moving.hashes.poster.hash }
      : (read.still as ImageInfo);
    // The stored file is these bytes: its MD5 and size for the Danbooru API (docs/decisions.md §20).
    const facts = await fileMd5(file.path);
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
        const existing = this.copiesOf(this.deps.posts.getManyById(matches.map((m) => m.postId)), read.moving);
        if (existing.length > 0) {
          const body = existing.map((p) => toDuplicateMatch(p, this.deps.config.mediaUrl));
          throw new AppError('duplicate_image', 'a near-duplicate image exists', body);
        }
      }
    };
    // Checked once before the file goes to the store (no write for a known duplicate), and again
    // inside the insert's BEGIN IMMEDIATE transaction: a post committed in between, by this process
    // or another (`imgpost import` beside the server), is then seen, and two near-duplicates never
    // both commit. The store write stays outside the transaction, so a slow store never serialises
    // uploads. A store failure is a 503 with nothing committed (adopt undoes its writes).
    refuseDuplicates();
    // Whole at the answer (docs/decisions.md §4): a still image's thumbnails and descriptor before the
    // insert. A moving picture's are of its poster frame (§21): its thumbnail job makes them right after.
    const made = read.moving ? undefined : await this.deps.withUpload?.make(file.path);
    let created: PostRecord;
    try {
      await this.deps.images.adopt(file.path, image, id, made?.thumbnails);
    } catch (err) {
      made?.discard();
      throw err;
    }
    try {
      await this.hooks.beforeInsert?.();
      // Only SQLite inside: the write lock is held for a millisecond, not a store or index round trip.
      created = await this.deps.unitOfWork.write((tx) => {
        refuseDuplicates();
        const now = input.imported?.createdAt ?? new Date().toISOString();
        input.imported?.beforeInsert();
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
          md5: facts.md5,
          fileSize: facts.size,
          uploaderId: input.uploader?.id ?? null,
          aggr: input.aggr ?? null,
          createdAt: now,
          source: input.metadata.source ?? '',
          parentSeq: resolveParent(this.deps.posts, undefined, input.metadata.parentId ?? null),
          ...(read.moving ? { media: read.moving.info } : {}),
          ...(read.still?.dihedral ? { dihedral: read.still.dihedral } : {}),
        });
        if (read.moving) this.deps.moving!.frames.set(seq, read.moving.hashes);
        if (made?.robust) this.deps.posts.robust.storeWithInsert(seq, made.robust);
        this.deps.images.settle(image);
        input.imported?.afterInsert(seq);
        const post = this.deps.posts.getBySeq(seq)!;
        // What was not made with the upload is queued here, made after the response and never lost.
        tx.created(post, input.uploader, {
          thumbnails: (made?.thumbnails.length ?? 0) > 0,
          descriptor: made?.robust !== undefined,
        });
        return post;
      });
    } catch (err) {
      // Nothing committed: the objects go (or stay journaled for the sweep when the store is down).
      await this.deps.images.discard(image);
      throw err;
    } finally {
      made?.discard();
    }
    // As for update: a delete that raced the index write does not undo this answer.
    return this.deps.posts.getById(id) ?? created;
  }

  /**
   * A create naming a direct upload's key (issue 26): the user's object is claimed and read, then
   * created exactly as a multipart upload; the uploaded object goes once the post committed, and
   * stays claimable (until it expires) when the create failed.
   */
  async createFromUpload(
    input: Omit<CreatePostInput, 'file' | 'uploader'> & { key: string; uploader: AuthUser },
  ): Promise<PostRecord> {
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
    // Stored either way; if the index is down the relay brings the change over when it returns.
    const { row, after } = await this.deps.unitOfWork.write((tx) => this.editWithin(tx, ref, patch, initiator));
    // A delete may have committed while this waited for the index: the edit still happened, so it
    // answers with the post as the edit left it.
    return this.deps.posts.getById(row.postId) ?? after;
  }

  /**
   * The edit's writes and its commit step, inside the caller's unit of work: for changes that edit
   * and delete posts at once (a merge, src/moderation/).
   */
  editWithin(
    tx: WriteTransaction,
    ref: string,
    patch: PostMetadata,
    /** null: an import's enrichment (docs/decisions.md §22) */
    initiator: AuthUser | null,
  ): { row: OutboxRow; after: PostRecord } {
    const { posts } = this.deps;
    const before = this.find(ref);
    const oldTags = before.tags.map((t) => t.name);
    // Tags as they will be stored (aliases resolved, implications added), so the diff is the real one.
    const parentSeq =
      patch.parentId === undefined ? before.parentSeq : resolveParent(posts, before.seq, patch.parentId);
    const parentId =
      parentSeq === null ? null : parentSeq === before.parentSeq ? before.parentId : posts.getBySeq(parentSeq)!.id;
    const wanted = {
      text: patch.text ?? before.text,
      rating: patch.rating ?? before.rating,
      tags: patch.tags ? posts.resolveTags(patch.tags) : oldTags,
      source: patch.source ?? before.source,
      parentId,
    };
    const diff = diffVersions(versionedFieldsOf(before), wanted);
    // Nothing changed: no new post version, but the update event still fires (below).
    if (!isEmptyDiff(diff)) {
      posts.updateFields(before.seq, { text: wanted.text, rating: wanted.rating, updatedAt: new Date().toISOString() });
      if (diff.tags) posts.setTags(before.seq, wanted.tags);
      if (diff.source || diff.parentId) posts.links.setOrigin(before.seq, { source: wanted.source, parentSeq });
    }
    const after = posts.getBySeq(before.seq)!;
    return { row: tx.updated(before, after, initiator), after };
  }

  async delete(ref: string, initiator: AuthUser): Promise<void> {
    await this.deps.unitOfWork.write((tx) => this.deleteWithin(tx, ref, initiator));
  }

  /** The delete's writes and its commit step, inside the caller's unit of work (see editWithin). */
  deleteWithin(tx: WriteTransaction, ref: string, initiator: AuthUser): { row: OutboxRow; post: PostRecord } {
    const { posts, images } = this.deps;
    const post = this.find(ref);
    // docs/decisions.md §19: children lose their parent (each an edit), pools lose the post (each a change).
    orphanChildren(tx, posts, post, initiator);
    this.deps.pools?.removeDeletedPost(tx, post, initiator);
    posts.delete(post.seq);
    // Journaled now; removed from the store once the unit commits (its 'images.released' event).
    images.markForRemoval(imageName(post), post.id);
    return { row: tx.deleted(post, initiator), post };
  }

  /** Removes deleted posts' files; a store that fails leaves them journaled, and the sweep retries. */
  async removeReleasedImages(released: readonly string[]): Promise<void> {
    for (const image of released) {
      const failed = await this.deps.images.remove(image);
      if (failed > 0)
        this.deps.log.warn("could not delete a deleted post's files yet; the sweep retries", { image, failed });
    }
  }
}
