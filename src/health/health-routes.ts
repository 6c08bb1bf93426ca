/**
 * /healthz: the process answers. /readyz: it can do its work, i.e. SQLite answers and every shard
 * of the posts index has an active copy (postsHealth). A cluster that is yellow (a replica missing,
 * say after losing a node) or red because of some other index still serves: the cluster's own
 * status is reported beside it for operators, but does not make the service unready.
 */
import type { Db } from '../db/sqlite.ts';
import { postsHealth, type EsClient } from '../elasticsearch/client.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { always, type Feature } from '../http/endpoint.ts';
import type { FfmpegTools } from '../video/binaries.ts';
import { Health, Readiness } from './schemas.ts';

interface HealthDeps {
  db: Db;
  es: EsClient;
  postsIndex: Pick<PostsIndex, 'alias'>;
  ffmpeg: FfmpegTools;
}

function sqliteAnswers(db: Db): boolean {
  try {
    return db.prepare('SELECT 1').pluck().get() === 1;
  } catch {
    return false;
  }
}

export const healthFeature: Feature<HealthDeps> = {
  name: 'health',
  endpoints: [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'health',
      tag: 'operations',
      summary: 'Liveness: the process answers',
      responses: { ...always, 200: { description: 'alive', schema: Health } },
      handle: () => [
        (ctx) => {
          ctx.body = { status: 'ok' };
        },
      ],
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readiness',
      tag: 'operations',
      summary: 'Readiness: SQLite answers and the posts index can serve (503 otherwise); reports the cluster status',
      responses: {
        ...always,
        200: { description: 'ready', schema: Readiness },
        503: { description: 'not ready', schema: Readiness },
      },
      handle: (deps) => [
        async (ctx) => {
          const sqlite = sqliteAnswers(deps.db);
          const health = await postsHealth(deps.es, deps.postsIndex.alias);
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
        },
      ],
    },
  ],
};
