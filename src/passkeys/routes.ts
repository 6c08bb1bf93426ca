import Router from '@koa/router';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { requireAccountCredential } from '../accounts/permissions.ts';
import { notFound } from '../errors.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { authenticationBody, loginOptionsBody, registrationBody } from './schemas.ts';
import type { PasskeyService } from './service.ts';

const idParam = (ctx: AppContext): number => {
  const id = /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;
  if (!Number.isSafeInteger(id)) throw notFound('no such passkey of yours');
  return id;
};

/**
 * docs/decisions.md §14: passkeys. Registering, listing and removing need the account itself (a session or
 * the account key): an app key is 403. Signing in needs nothing but the passkey.
 */
export function passkeyRoutes(deps: { passkeys: PasskeyService }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/account' });
  const { passkeys } = deps;

  router.post('/passkey/options', async (ctx) => {
    const user = requireAccountCredential(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await passkeys.registrationOptions(user);
  });

  router.post('/passkey', jsonBody(), async (ctx) => {
    const user = requireAccountCredential(ctx);
    const body = parse(registrationBody, requestBody(ctx)) as unknown as RegistrationResponseJSON & { name?: string };
    ctx.status = 201;
    ctx.body = await passkeys.register(user, body);
  });

  router.post('/passkey/login/options', jsonBody(), async (ctx) => {
    const { username } = parse(loginOptionsBody, optionalBody(ctx));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await passkeys.loginOptions(username);
  });

  router.post('/passkey/login', jsonBody(), async (ctx) => {
    const body = parse(authenticationBody, requestBody(ctx)) as unknown as AuthenticationResponseJSON;
    const { self, cookie } = await passkeys.login(body);
    ctx.append('Set-Cookie', cookie.header);
    // The body carries the access key: no cache may keep it.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = self;
  });

  router.get('/passkeys', (ctx) => {
    ctx.body = passkeys.list(requireAccountCredential(ctx).id);
  });

  router.delete('/passkeys/:id', (ctx) => {
    passkeys.remove(requireAccountCredential(ctx).id, idParam(ctx));
    ctx.status = 204;
  });

  return router;
}
