import { AppError } from '../errors.ts';
import type { AppContext } from '../http/context.ts';
import { always, error, postId, postNotFound, retryAfter, type Feature } from '../http/endpoint.ts';
import { z } from '../util/zod.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import { THUMBNAIL_SIZES, thumbnailUrl } from '../kernel/media-names.ts';
import type { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import { IMAGE_MIMES, MEDIA_EXTS, MIME_BY_EXT, VIDEO_MIMES } from '../media-store/formats.ts';
import type { MediaRedirect } from './redirect.ts';
import type { ImageStore } from '../media-store/image-store.ts';
import { RangeNotSatisfiableError, type ByteRange, type ObjectRead } from '../media-store/media-store.ts';

// Only names the service itself issues: a UUID and a known extension, or a UUID, a thumbnail size
// and webp. Anything else (.., %2F, NUL) is 404.
const IMAGE_NAME = new RegExp(
  `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(?:${MEDIA_EXTS.join('|')}|(?:${THUMBNAIL_SIZES.join('|')})\\.webp)$`,
);

/** Parses a single `bytes=` range; undefined means "serve it all" (or a form we do not take), null unsatisfiable. */
function parseRange(header: string): ByteRange | null | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  if (m[2] !== '' && Number(m[2]) < Number(m[1])) return null;
  return m[2] === '' ? { start: Number(m[1]) } : { start: Number(m[1]), end: Number(m[2]) };
}

/**
 * GET /media/<name>: streamed from the media store (the local directory or S3, docs/decisions.md §17), one
 * store request per response, with the same ETag, Range and caching whichever the store. A store
 * that fails or does not answer within its time-out is a 503 (store_unavailable), never a hang.
 * (A CDN or the bucket itself can serve media instead: MEDIA_URL.)
 *
 * With `mediaRedirect` (MEDIA_REDIRECT=presigned, S3 only) it answers 302 to a short-lived
 * presigned GET of the object instead (src/media/redirect.ts); ETag, Range and conditional requests
 * are then the bucket's. The Location is never logged (the request log has the route, not headers).
 */
const PostThumbnails = z
  .object({
    postId: z.string().uuid(),
    thumbnails: z.array(
      z
        .object({
          size: z.number().int().openapi({ description: "the thumbnail's longer side, in pixels" }),
          url: z.string().url(),
        })
        .strict(),
    ),
  })
  .strict()
  .openapi('PostThumbnails', { description: 'WebP thumbnails of the post, smallest first' });
type PostThumbnails = z.infer<typeof PostThumbnails>;

/** Stored images and their thumbnails, served from the media store or redirected to its bucket. */
export const mediaFeature: Feature<MediaDeps> = {
  name: 'media',
  busy: true,
  endpoints: [
    {
      method: 'get',
      path: '/media/{image}',
      operationId: 'getMedia',
      tag: 'media',
      summary:
        'An image (<id>.<ext>) or thumbnail (<id>.<size>.webp); ETag, long cache lifetime, Range; or a redirect to the bucket (MEDIA_REDIRECT=presigned)',
      request: {
        params: z.object({ image: z.string().openapi({ example: '0190c3f0-0000-7000-8000-000000000000.320.webp' }) }),
      },
      responses: {
        ...always,
        200: { description: 'the file', contentTypes: [...IMAGE_MIMES, ...VIDEO_MIMES] },
        206: { description: 'the requested range', contentTypes: [...IMAGE_MIMES, ...VIDEO_MIMES] },
        // MEDIA_REDIRECT=presigned (S3 store): the bytes come from the bucket; the redirect may be kept
        // only for the private max-age it states (below the URL's life).
        302: {
          description:
            'with MEDIA_REDIRECT=presigned: the file is at Location, a presigned URL of the bucket that expires (MEDIA_REDIRECT_EXPIRES_S); Range and validators then apply there',
          headers: {
            Location: { description: 'a short-lived presigned GET of the object', schema: { type: 'string' } },
            'Cache-Control': {
              description: "private, max-age=<seconds, below the URL's remaining life>",
              schema: { type: 'string' },
            },
          },
        },
        304: { description: 'not modified (If-None-Match)' },
        404: error('no such file'),
        416: error('range not satisfiable'),
        503: {
          ...error('the media store (MEDIA_STORE, e.g. S3) failed or did not answer in time; try again shortly'),
          headers: retryAfter,
        },
      },
      handle: (deps) => [
        async (ctx) => {
          const image = ctx.params.image;
          if (!IMAGE_NAME.test(image)) throw notFound();
          if (deps.mediaRedirect && (await redirected(ctx, deps.mediaRedirect, image))) return;
          await serve(ctx, deps, image);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/post/{id}/thumbnails',
      operationId: 'getPostThumbnails',
      tag: 'media',
      summary: "A post's thumbnails: each size (its longer side, in pixels) and its URL, smallest first",
      request: { params: postId },
      responses: {
        ...always,
        200: { description: "the post's thumbnails", schema: PostThumbnails },
        404: postNotFound,
      },
      handle: ({ postService, config }) => [
        (ctx) => {
          const post = postService.find(ctx.params.id);
          // Valid from the post's first response: a thumbnail asked for before it is made is made then.
          ctx.body = {
            postId: post.id,
            thumbnails: THUMBNAIL_SIZES.map((size) => ({ size, url: thumbnailUrl(config.mediaUrl, post.id, size) })),
          } satisfies PostThumbnails;
        },
      ],
    },
  ],
};

interface MediaDeps {
  images: ImageStore;
  thumbnailer: Pick<Thumbnailer, 'ensure'>;
  mediaRedirect?: MediaRedirect;
  /** a post by UUID or number, or 404 (the posts feature's rule) */
  postService: { find(ref: string): Pick<PostRecord, 'id'> };
  config: { mediaUrl: string };
}

/** What a read gives: the object (all of it or the range asked for), or the size a range missed. */
type Read = ObjectRead | RangeNotSatisfiableError;

const notFound = () => new AppError('not_found', 'not found');

/** Answers 302 to the object's presigned URL unless the redirect says to stream this one; true when it answered. */
async function redirected(ctx: AppContext, mediaRedirect: MediaRedirect, image: string): Promise<boolean> {
  const to = await mediaRedirect.locate(image);
  if (to === 'stream') return false;
  if (!to) throw notFound();
  ctx.set('Location', to.url);
  // private: a shared cache must not hand one client's signed URL to others past its life.
  ctx.set('Cache-Control', `private, max-age=${to.maxAgeS}`);
  // An explicitly empty body (Content-Length 0); Koa turns a null body into a 204, so the status follows it.
  ctx.body = null;
  ctx.status = 302;
  return true;
}

async function serve(ctx: AppContext, deps: MediaDeps, image: string): Promise<void> {
  const rangeHeader = ctx.get('range');
  // If-Range names the ETag, which needs the size: a range is asked for, and dropped below if it no longer matches.
  const range = rangeHeader ? parseRange(rangeHeader) : undefined;
  let read = await openRange(deps.images, image, range);
  // A post's thumbnail URLs are valid from its first response, but its thumbnails are made
  // after it: one asked for before the background work reached it is made now.
  if (!read && isThumbnail(image) && (await deps.thumbnailer.ensure(image))) {
    read = await openRange(deps.images, image, range);
  }
  if (!read) throw notFound();
  const size = read.size;
  const etag = setObjectHeaders(ctx, image, size);
  // Not Koa's ctx.fresh: it never answers 304 to a request saying Cache-Control: no-cache, and fetch()
  // sends that with every request that carries If-None-Match.
  if (
    ctx
      .get('if-none-match')
      .split(/\s*,\s*/)
      .includes(etag)
  ) {
    discard(read);
    ctx.status = 304;
    return;
  }
  const ifRange = ctx.get('if-range');
  if (range && ifRange && ifRange !== etag) {
    // If-Range no longer matches: the whole file.
    discard(read);
    read = await deps.images.open(image);
    if (!read) throw notFound();
  }
  send(ctx, read, size);
}

/** The headers every answer about the object carries, whatever its status; returns the ETag. */
function setObjectHeaders(ctx: AppContext, image: string, size: number): string {
  // A post's file never changes under its name, so name and size make a strong validator.
  const etag = `"${image.slice(0, 36)}-${size.toString(16)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
  ctx.set('Accept-Ranges', 'bytes');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = MIME_BY_EXT[image.slice(image.lastIndexOf('.') + 1)];
  return etag;
}

/** Opens the object for the range asked for; a range it cannot satisfy comes back as the error, with the size. */
async function openRange(
  images: ImageStore,
  image: string,
  range: ByteRange | null | undefined,
): Promise<Read | undefined> {
  try {
    const read = await images.open(image, { range: range ?? undefined });
    if (read && range === null) {
      read.body.destroy();
      return new RangeNotSatisfiableError(read.size);
    }
    return read;
  } catch (err) {
    if (err instanceof RangeNotSatisfiableError) return err;
    throw err;
  }
}

const isThumbnail = (image: string) => image.endsWith('.webp') && image.split('.').length === 3;

function discard(read: Read): void {
  if (!(read instanceof RangeNotSatisfiableError)) read.body.destroy();
}

function send(ctx: AppContext, read: Read, size: number): void {
  if (read instanceof RangeNotSatisfiableError) {
    ctx.status = 416;
    ctx.set('Content-Range', `bytes */${size}`);
    ctx.body = { error: 'range not satisfiable' };
    return;
  }
  if (read.range) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${read.range.start}-${read.range.end}/${size}`);
  } else {
    ctx.status = 200;
  }
  ctx.length = read.length;
  ctx.body = read.body;
}
