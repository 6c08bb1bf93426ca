import fs from 'node:fs';
import Router from '@koa/router';
import { AppError } from '../errors.ts';
import type { AppState } from '../http/context.ts';
import { THUMBNAIL_SIZES } from '../kernel/media-names.ts';
import type { Thumbnailer } from '../thumbnails/thumbnailer.ts';
import { IMAGE_EXTS, MIME_BY_EXT } from './store/formats.ts';
import type { ImageStore } from './store/image-store.ts';


// Only names the service itself issues: a UUID and a known extension, or a UUID, a thumbnail size
// and webp. Anything else (.., %2F, NUL) is 404.
const IMAGE_NAME = new RegExp(
  `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(?:${IMAGE_EXTS.join('|')}|(?:${THUMBNAIL_SIZES.join('|')})\\.webp)$`,
);

/** Parses a single `bytes=` range; undefined means "serve it all", null means unsatisfiable. */
function parseRange(header: string, size: number): { start: number; end: number } | null | undefined {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return start > end || start >= size ? null : { start, end };
}

async function statOrNull(file: string): Promise<fs.Stats | null> {
  return fs.promises.stat(file).catch(() => null);
}

export function mediaRoutes(deps: { images: ImageStore; thumbnailer: Pick<Thumbnailer, 'ensure'> }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/media/:image', async (ctx) => {
    const image = ctx.params.image;
    if (!IMAGE_NAME.test(image)) throw new AppError('not_found', 'not found');
    const file = deps.images.pathOf(image);
    let stat = await statOrNull(file);
    // A post's thumbnail URLs are valid from its first response, but its thumbnails are made
    // after it: one asked for before the background work reached it is made now.
    if (!stat && image.endsWith('.webp') && image.split('.').length === 3 && (await deps.thumbnailer.ensure(image))) stat = await statOrNull(file);
    if (!stat) throw new AppError('not_found', 'not found');
    // A post's file never changes under its name, so name and size make a strong validator.
    const etag = `"${image.slice(0, 36)}-${stat.size.toString(16)}"`;
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = MIME_BY_EXT[image.slice(image.lastIndexOf('.') + 1)];
    if (ctx.get('if-none-match').split(/\s*,\s*/).includes(etag)) {
      ctx.status = 304;
      return;
    }
    const rangeHeader = ctx.get('range');
    const range = rangeHeader && (!ctx.get('if-range') || ctx.get('if-range') === etag) ? parseRange(rangeHeader, stat.size) : undefined;
    if (range === null) {
      ctx.status = 416;
      ctx.set('Content-Range', `bytes */${stat.size}`);
      ctx.body = { error: 'range not satisfiable' };
      return;
    }
    if (range) {
      ctx.status = 206;
      ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
      ctx.length = range.end - range.start + 1;
      ctx.body = fs.createReadStream(file, range);
    } else {
      ctx.status = 200;
      ctx.length = stat.size;
      ctx.body = fs.createReadStream(file);
    }
  });
  return router;
}
