import Router from '@koa/router';
import { currentUser, PERMISSION, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import { CreatePool, PatchPool, PoolHistoryQuery, PoolListQuery, poolIdOf } from './schemas.ts';
import type { PoolService } from './service.ts';

/**
 * Pools (docs/decisions.md §19): reading is public; creating and editing need 0x4 (the edit bit),
 * deleting 0x2000. `GET /api/post/[id]/pools` lists a post's pools with its neighbours in each.
 */
export function poolRoutes(deps: { pools: PoolService; findPost: (ref: string) => PostRecord }): Router<AppState> {
  const router = new Router<AppState>();
  const by = (ctx: AppContext) => {
    const user = currentUser(ctx);
    return { id: user.id, name: user.name };
  };
  const poolId = (ctx: AppContext & { params: Record<string, string> }) => {
    const id = poolIdOf(ctx.params.id);
    if (id === undefined) throw new AppError('not_found', 'pool not found');
    return id;
  };

  router.post('/api/pool', requirePermission(PERMISSION.editPost), jsonBody(), async (ctx) => {
    const input = parse(CreatePool, requestBody(ctx));
    ctx.body = await deps.pools.create(input, by(ctx));
    ctx.status = 201;
  });

  router.get('/api/pool', (ctx) => {
    const q = parse(PoolListQuery, ctx.query);
    ctx.body = deps.pools.list(q.prefix, q.offset, q.limit);
  });

  router.get('/api/pool/:id', (ctx) => {
    ctx.body = deps.pools.get(poolId(ctx));
  });

  router.patch('/api/pool/:id', requirePermission(PERMISSION.editPost), jsonBody(), async (ctx) => {
    const input = parse(PatchPool, optionalBody(ctx));
    ctx.body = await deps.pools.patch(poolId(ctx), input, by(ctx));
  });

  router.delete('/api/pool/:id', requirePermission(PERMISSION.deletePost), async (ctx) => {
    await deps.pools.delete(poolId(ctx), by(ctx));
    ctx.status = 204;
  });

  router.get('/api/pool/:id/history', (ctx) => {
    const q = parse(PoolHistoryQuery, ctx.query);
    ctx.body = deps.pools.history(poolId(ctx), q.offset, q.limit);
  });

  router.get('/api/post/:id/pools', (ctx) => {
    ctx.body = { data: deps.pools.placesOf(deps.findPost(ctx.params.id)) };
  });

  return router;
}
