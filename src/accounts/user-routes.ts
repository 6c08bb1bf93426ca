import Router from '@koa/router';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { currentUser } from './permissions.ts';
import { userListQuery, userPatchSchema } from './schemas.ts';
import type { UserAdmin } from './user-admin.ts';

// A malformed id finds no user: 404 (docs/decisions.md §3), never 500.
const idParam = (ctx: AppContext): number =>
  /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;

/** The user admin API (docs/decisions.md §14); each route checks its bit in UserAdmin. */
export function userRoutes(deps: { userAdmin: UserAdmin }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/user' });
  const { userAdmin } = deps;

  router.get('/', (ctx) => {
    const caller = currentUser(ctx);
    const q = parse(userListQuery, ctx.query);
    ctx.body = userAdmin.list(caller, q.prefix, q.offset, q.limit);
  });

  router.patch('/:id', jsonBody(), (ctx) => {
    const caller = currentUser(ctx);
    ctx.body = userAdmin.patch(caller, idParam(ctx), parse(userPatchSchema, requestBody(ctx)));
  });

  router.delete('/:id', (ctx) => {
    const caller = currentUser(ctx);
    userAdmin.remove(caller, idParam(ctx));
    ctx.status = 204;
  });

  return router;
}
