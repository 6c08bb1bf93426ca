import Router from '@koa/router';
import type { Db } from '../db/sqlite.ts';
import { ping, type EsClient } from '../elasticsearch/client.ts';
import type { AppState } from '../http/context.ts';

export function healthRoutes(deps: { db: Db; es: EsClient }): Router<AppState> {
  const router = new Router<AppState>();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    let sqlite = false;
    try {
      sqlite = deps.db.prepare('SELECT 1').pluck().get() === 1;
    } catch {
      sqlite = false;
    }
    const elasticsearch = await ping(deps.es);
    ctx.status = sqlite && elasticsearch ? 200 : 503;
    ctx.body = { status: ctx.status === 200 ? 'ready' : 'not ready', sqlite: sqlite ? 'up' : 'down', elasticsearch: elasticsearch ? 'up' : 'down' };
  });
  return router;
}
