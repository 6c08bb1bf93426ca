import type { PostRepository } from '../kernel/post-repository.ts';
import type { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import type { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import { MIME_BY_EXT } from '../media-store/formats.ts';
import { mediaKey, type MediaStore } from '../media-store/media-store.ts';
import type { MediaStores } from '../media-store/stores.ts';

export interface MediaRedirectDeps {
  /**
   * The stores in use, read per request: `imgpost media migrate` may switch them under a live
   * server, and while it copies an object may still be in the old store only.
   */
  stores: Pick<MediaStores, 'current'>;
  posts: Pick<PostRepository, 'imageExt'>;
  thumbnails: Pick<ThumbnailQueue, 'isQueued'>;
  thumbnailer: Pick<Thumbnailer, 'ensure'>;
  /** MEDIA_REDIRECT_EXPIRES_S: how long a presigned URL is good for. */
  expiresS: number;
}

/** Where GET /media sends the client, and for how long the client may keep that answer. */
export interface MediaLocation {
  url: string;
  maxAgeS: number;
}

/** Signed URLs kept per process (one per file name); past this the map starts over. */
const MAX_CACHED = 10_000;

/**
 * GET /media's redirect mode (MEDIA_REDIRECT=presigned, S3 only, docs/decisions.md §17): the server answers
 * with a short-lived presigned GET of the object, and the bucket (or whatever fronts it) sends the
 * bytes, so a read costs the server no store round trip and no bytes.
 *
 * Existence is answered from the database, not with a HEAD to the store: an image exists while its
 * post row does (the object is put before the post commits and deleted after the row), and a
 * post's thumbnails exist once its thumbnail job is done; while it is queued the store is asked (a
 * HEAD) and a missing thumbnail is made now, as the streaming route does. So an unknown or deleted post is a 404 from
 * the server without touching the store, and a store that is down is seen by the client at the bucket, not as our 503.
 *
 * URLs are signed with a date rounded down to half the life, so every request within that window
 * gets the same URL: browsers and caches then reuse the image they fetched from it (its immutable
 * Cache-Control is the object's own), and the server signs each name once per window. The redirect
 * itself may be kept for what is left of the URL's life less a tenth (clock skew), never longer.
 */
export class MediaRedirect {
  private readonly signed = new Map<string, { windowStart: number; url: string }>();
  private readonly windowS: number;

  constructor(private readonly deps: MediaRedirectDeps) {
    this.windowS = Math.max(1, Math.floor(deps.expiresS / 2));
  }

  /** The origin the URLs point at: pages that show media must allow it (CSP). */
  get origin(): string | undefined {
    return this.deps.stores.current().active.publicOrigin;
  }

  /**
   * undefined when there is no such file (a 404); 'stream' when the store in use cannot presign
   * (a migration to the local directory) or a migration is copying; `name` has been validated by the route.
   */
  async locate(name: string): Promise<MediaLocation | 'stream' | undefined> {
    const { active: store, previous } = this.deps.stores.current();
    if (previous || !store.presignGet) return 'stream';
    const [id, ...rest] = name.split('.');
    const ext = this.deps.posts.imageExt(id);
    if (ext === undefined) return undefined;
    if (rest.length === 1 && rest[0] !== ext) return undefined;
    // A queued job may be a remake (rethumb) of thumbnails that exist: ask the store before making them.
    if (
      rest.length === 2 &&
      this.deps.thumbnails.isQueued(id) &&
      !(await store.head(mediaKey(name))) &&
      !(await this.deps.thumbnailer.ensure(name))
    )
      return undefined;
    return this.sign(store, name);
  }

  private async sign(store: MediaStore, name: string): Promise<MediaLocation> {
    const { expiresS } = this.deps;
    const nowS = Date.now() / 1000;
    const windowStart = Math.floor(nowS / this.windowS) * this.windowS;
    const key = `${store.location} ${name}`;
    let url = this.signed.get(key);
    if (url?.windowStart !== windowStart) {
      const signed = await store.presignGet!(mediaKey(name), {
        expiresIn: expiresS,
        signingDate: new Date(windowStart * 1000),
        // The type the streaming route would send, whatever the object was stored with.
        responseContentType: MIME_BY_EXT[name.slice(name.lastIndexOf('.') + 1)],
      });
      url = { windowStart, url: signed.url };
      if (this.signed.size >= MAX_CACHED) this.signed.clear();
      this.signed.set(key, url);
    }
    const maxAgeS = Math.max(0, Math.floor(windowStart + expiresS - nowS - expiresS / 10));
    return { url: url.url, maxAgeS };
  }
}
