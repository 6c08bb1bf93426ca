import Router from '@koa/router';
import type { Db } from '../db/sqlite.ts';
import { postsHealth, type EsClient } from '../elasticsearch/client.ts';
import type { AppState } from '../http/context.ts';
import type { FfmpegTools } from '../video/binaries.ts';

/**
 * /healthz: the process answers. /readyz: it can do its work, i.e. SQLite answers and every shard
 * of the posts index has an active copy (postsHealth). A cluster that is yellow (a replica missing,
 * say after losing a node) or red because of some other index still serves: the cluster's own
 * status is reported beside it for operators, but does not make the service unready.
 */
export function healthRoutes(deps: {
  db: Db;
  es: EsClient;
  postsAlias: string;
  ffmpeg: FfmpegTools;
}): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    let sqlite: boolean;
    try {
      sqlite = deps.db.prepare('SELECT 1').pluck().get() === 1;
    } catch {
      sqlite = false;
    }
    const health = await postsHealth(deps.es, deps.postsAlias);
    const elasticsearch = health.serving;
    ctx.status = sqlite && elasticsearch ? 200 : 503;
    ctx.body = {
      status: ctx.status === 200 ? 'ready' : 'not ready',
      sqlite: sqlite ? 'up' : 'down',
      elasticsearch: elasticsearch ? 'up' : 'down',
      cluster: health.cluster ?? 'unreachable',
      // docs/decisions.md §21: which ffmpeg reads uploads (docs/operations/ffmpeg.md prefers a patched one)
      ffmpeg: { ffmpeg: deps.ffmpeg.ffmpeg, ffprobe: deps.ffmpeg.ffprobe, source: deps.ffmpeg.source },
    };
  });
  return router;
}
