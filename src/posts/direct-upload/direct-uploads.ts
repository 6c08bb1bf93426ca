import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { AppError, invalid } from '../../errors.ts';
import type { AuthUser } from '../../http/context.ts';
import type { Logger } from '../../log.ts';
import { StoreUnavailableError, type MediaStore } from '../../media-store/media-store.ts';
import type { UploadedFile } from '../../http/multipart.ts';
import { UUID_PATTERN, uuidv7 } from '../../util/uuid.ts';
import type { UploadGrantRepository } from './grant-repository.ts';

/**
 * Direct uploads (issue 26), as the original LONG Hub does them: `POST /api/post/upload-url` grants
 * the caller a presigned PUT to a fresh key in the S3 bucket; the client puts the file there and
 * then creates the post naming the key (multipart part `key` in place of `image`). The server reads
 * the object into a temp file and the create goes on exactly as for a multipart upload (size,
 * format, pixels, near-duplicates: the same 400/409/413), the image being put under the post's own
 * key; the uploaded object is then deleted and the key cannot be used again.
 *
 * Journal: the grant row is written before the URL is handed out and kept until the grant has
 * expired (plus a margin for a PUT begun just before), so every object a client can put has a row:
 * the media sweep (`sweep`) then deletes the object, whether the key was never used, used (the
 * create deleted it at once, but the URL took PUTs until it expired) or claimed by a create a crash
 * interrupted. A create that fails releases the claim, so the same key can be named again (e.g. with
 * force=1 after a 409) until it expires. The URL and its signature are never logged.
 */

export interface DirectUploadSettings {
  /** DIRECT_UPLOAD_EXPIRES_S: how long the URL and the grant are good for */
  expiresInS: number;
  /** uploads must be smaller than this (400 otherwise, as for a multipart image) */
  maxImageBytes: number;
  /** an object larger than this is 413, as a multipart body past the cap */
  maxBodyBytes: number;
  /**
   * docs/decisions.md §21: an upload not declared an image may be a video, below this (and its
   * body cap); absent, every upload keeps the image limits
   */
  video?: { maxBytes: number; maxBodyBytes: number };
}

/** The limits of an upload declared `contentType`: an image's, or (anything else) a video's. */
function limitsFor(settings: DirectUploadSettings, contentType: string): { max: number; body: number } {
  if (!settings.video || contentType.toLowerCase().startsWith('image/'))
    return { max: settings.maxImageBytes, body: settings.maxBodyBytes };
  return {
    max: Math.max(settings.maxImageBytes, settings.video.maxBytes),
    body: Math.max(settings.maxBodyBytes, settings.video.maxBodyBytes),
  };
}

export interface UploadUrl {
  key: string;
  method: 'PUT';
  url: string;
  /** to send with the PUT exactly as given (signed) */
  headers: Record<string, string>;
  expiresAt: string;
}

/**
 * A claimed grant's object, read into a temp file: hand `file` to the create, then call `finish` with the post it
 * became (undefined: the create failed).
 */
export interface ClaimedUpload {
  file: UploadedFile;
  finish(postId: string | undefined): Promise<void>;
}

/**
 * The margin past a grant's expiry before its object is deleted: a PUT begun at the last second may still be landing.
 */
const MAX_PUT_MARGIN_MS = 60_000;
const objectKey = (id: string) => `uploads/${id}`;

export const imageTooBig = (path: string[], size: number, max: number) =>
  invalid(path, `image must be smaller than ${max} bytes`, 'too_big', `< ${max} bytes`, `${size} bytes`);

export class DirectUploads {
  constructor(
    private readonly deps: {
      store: MediaStore;
      grants: UploadGrantRepository;
      /** where a claimed object is read to (DATA_DIR/tmp, emptied at start-up) */
      tmpDir: string;
      log: Logger;
      settings: DirectUploadSettings;
    },
  ) {}

  /** A presigned PUT to a fresh key for `user`; 409 when the store is local (no bucket to put to). */
  async grant(
    user: AuthUser,
    request: { contentType?: string; size?: number; expiresIn?: number },
  ): Promise<UploadUrl> {
    const { store, grants, settings } = this.deps;
    if (!store.presignPut)
      throw new AppError(
        'conflict',
        'direct uploads need an S3 media store (MEDIA_STORE=s3://...); this server keeps images locally: send the image to POST /api/post/ as multipart/form-data',
      );
    const contentType = request.contentType ?? 'application/octet-stream';
    const { max } = limitsFor(settings, contentType);
    if (request.size !== undefined && request.size >= max) throw imageTooBig(['size'], request.size, max);
    const id = uuidv7();
    const now = Date.now();
    const expiresIn = Math.min(request.expiresIn ?? settings.expiresInS, settings.expiresInS);
    const expiresAt = now + expiresIn * 1000;
    // Journaled before the URL exists: no object can be put under a key the sweep does not know.
    grants.insert({ id, userId: user.id, contentType, size: request.size ?? null, createdAt: now, expiresAt });
    // Signing is local, but credentials from the SDK's default chain may need a lookup that fails: 503, never 500.
    const signed = await store
      .presignPut(objectKey(id), { expiresIn, contentType, contentLength: request.size })
      .catch((err: unknown) => {
        throw new StoreUnavailableError(store.location, 'presign put', 'denied', err);
      });
    return {
      key: id,
      method: 'PUT',
      url: signed.url,
      headers: signed.headers,
      expiresAt: new Date(expiresAt).toISOString(),
    };
  }

  /**
   * Claims the user's grant `key` and reads its object into a temp file. Every refusal is a 400 on
   * `key` (413 for an object past the body cap, as a multipart body): another user's key is
   * answered as an unknown one, so keys reveal nothing.
   */
  async claim(key: string, user: AuthUser): Promise<ClaimedUpload> {
    const { store, grants, settings } = this.deps;
    const refuse = (message: string, code = 'custom') => invalid(['key'], message, code);
    const now = Date.now();
    if (!UUID_PATTERN.test(key) || !grants.claim(key.toLowerCase(), user.id, now)) {
      const g = UUID_PATTERN.test(key) ? grants.get(key.toLowerCase()) : undefined;
      if (!g || g.userId !== user.id)
        throw refuse('key names no upload of yours (ask POST /api/post/upload-url for one)');
      // 400 like every other refusal of a key: a 409 from this route always lists near-duplicates.
      if (g.postId !== null) throw refuse(`this upload was already made into post ${g.postId}`);
      if (g.claimedAt !== null) throw refuse('this upload is being made into a post by another request');
      throw refuse('the upload has expired; ask POST /api/post/upload-url for a new one', 'expired');
    }
    const id = key.toLowerCase();
    const temp = path.join(this.deps.tmpDir, `direct-${id}`);
    const release = async (postId: string | undefined) => {
      await fsp.rm(temp, { force: true });
      if (postId === undefined) return grants.unclaim(id);
      grants.used(id, postId);
      // The row stays, claimed for good, until the grant expires: the URL still takes PUTs until
      // then, and the sweep deletes whatever one left (and this object, if this delete fails).
      await store.delete(objectKey(id)).catch((err: unknown) => {
        this.deps.log.warn('could not delete a used direct upload yet; the sweep retries', {
          key: id,
          err: (err as Error).message,
        });
      });
    };
    try {
      const head = await store.head(objectKey(id));
      if (!head) throw refuse('nothing was uploaded under this key yet', 'invalid_type');
      const limits = limitsFor(settings, grants.get(id)!.contentType);
      if (head.size > limits.body) throw new AppError('too_large', `request body larger than ${limits.body} bytes`);
      if (head.size >= limits.max) throw imageTooBig(['image'], head.size, limits.max);
      const read = await store.get(objectKey(id));
      if (!read) throw refuse('nothing was uploaded under this key yet', 'invalid_type');
      await pipeline(read.body, fs.createWriteStream(temp)).catch((err: unknown) => {
        // The store went away mid-body (the SDK's idle time-out, a reset): as any store failure, 503.
        throw new StoreUnavailableError(store.location, `get uploads/${id}`, 'unreachable', err);
      });
      const grant = grants.get(id)!;
      return { file: { path: temp, size: (await fsp.stat(temp)).size, mimetype: grant.contentType }, finish: release };
    } catch (err) {
      await release(undefined);
      throw err;
    }
  }

  /**
   * Deletes the objects of expired grants (past the PUT margin: never claimed, used, or claimed by a
   * create a crash interrupted, once the claim is older than `claimGraceMs`), then their rows. A store that is down
   * leaves the rows for the next pass: the first failure ends this one, so a dead store costs one
   * time-out (at start-up too), not one per row.
   */
  async sweep(claimGraceMs: number): Promise<{ removed: number; failed: number }> {
    const { store, grants } = this.deps;
    const now = Date.now();
    const result = { removed: 0, failed: 0 };
    for (const g of grants.stale(now, now - claimGraceMs, MAX_PUT_MARGIN_MS)) {
      try {
        await store.delete(objectKey(g.id));
        grants.remove(g.id);
        result.removed++;
      } catch {
        result.failed++;
        break;
      }
    }
    return result;
  }
}
