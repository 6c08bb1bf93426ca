import Router from '@koa/router';
import { notFound } from '../errors.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { currentUser, requireAccountCredential, requireAuth } from './permissions.ts';
import type { PreferenceStore } from './preferences.ts';
import { appKeySchema, loginSchema, preferencesSchema, registerSchema } from './schemas.ts';
import type { AccountService } from './service.ts';

const idParam = (ctx: AppContext): number => {
  const id = /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;
  if (!Number.isSafeInteger(id)) throw notFound('no such app key');
  return id;
};

/** docs/decisions.md §2; docs/decisions.md §14 (sign-up, app keys, preferences) */
export function accountRoutes(deps: { accounts: AccountService; preferences: PreferenceStore }): Router<AppState> {
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

  router.post('/register', jsonBody(), async (ctx) => {
    const input = parse(registerSchema, requestBody(ctx));
    const { self, cookie } = await accounts.register(input, ctx.ip);
    ctx.append('Set-Cookie', cookie.header);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = self;
  });

  router.get('/', requireAuth, (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accounts.selfFor(currentUser(ctx));
  });

  router.get('/reset-key', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = accounts.resetKey(requireAccountCredential(ctx).id);
  });

  router.post('/keys', jsonBody(), (ctx) => {
    const owner = requireAccountCredential(ctx);
    const input = parse(appKeySchema, requestBody(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = accounts.appKeys.create(owner, input);
  });

  router.get('/keys', (ctx) => {
    ctx.body = accounts.appKeys.list(requireAccountCredential(ctx).id);
  });

  router.delete('/keys/:id', (ctx) => {
    const owner = requireAccountCredential(ctx);
    accounts.appKeys.revoke(owner.id, idParam(ctx));
    ctx.status = 204;
  });

  router.get('/preferences', requireAuth, (ctx) => {
    ctx.body = deps.preferences.get(currentUser(ctx).id);
  });

  router.put('/preferences', requireAuth, jsonBody(), (ctx) => {
    ctx.body = deps.preferences.set(currentUser(ctx).id, parse(preferencesSchema, requestBody(ctx)));
  });

  return router;
}
