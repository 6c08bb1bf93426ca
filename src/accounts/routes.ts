import Router from '@koa/router';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { currentUser, requireAuth } from './permissions.ts';
import { loginSchema } from './schemas.ts';
import type { AccountService } from './service.ts';

/** spec §4.1–4.3 */
export function accountRoutes(deps: { accounts: AccountService }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/account' });
  const { accounts } = deps;

  router.post('/login', jsonBody(), async (ctx) => {
    const input = parse(loginSchema, requestBody(ctx));
    // ctx.ip honours X-Forwarded-For only when app.proxy (trustProxy) is on.
    const { self, cookie } = await accounts.login(input.username, input.password, ctx.ip, input.ttl);
    ctx.append('Set-Cookie', cookie.header);
    // The body carries the access key: no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = self;
  });

  router.get('/', requireAuth, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accounts.self(currentUser(ctx).id);
  });

  router.get('/reset-key', requireAuth, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accounts.resetKey(currentUser(ctx).id);
  });

  return router;
}
