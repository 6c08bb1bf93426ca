import { jsonBody, requestBody } from '../http/body.ts';
import { always, error, issues, json, retryAfter, type Feature } from '../http/endpoint.ts';
import { ErrorBody } from '../http/shapes.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { AccessKey, LoginFailure, Self, signedIn } from './account-shapes.ts';
import { currentUser, requireAccountCredential } from './permissions.ts';
import { loginSchema } from './schemas.ts';
import type { AccountService } from './service.ts';

/** Log-in and the caller's account (docs/decisions.md §2). */

/** Log-in and the caller's account (docs/decisions.md §2). */
export const sessionFeature: Feature<{ accounts: AccountService }> = {
  name: 'session',
  endpoints: [
    {
      method: 'post',
      path: '/api/account/login',
      operationId: 'login',
      tag: 'accounts',
      summary: 'Log in: returns Self and sets the nmsl_cookie session cookie',
      request: { body: { required: true, ...json(loginSchema) } },
      responses: {
        ...always,
        200: signedIn('logged in'),
        400: issues(),
        401: {
          description: 'invalid username/password (a JSON string), or an invalid X-Access-Key (an error object)',
          schema: z.union([LoginFailure, ErrorBody]),
        },
        429: { ...error('too many failed logins for this name or address'), headers: retryAfter },
      },
      handle: ({ accounts }) => [
        jsonBody(),
        async (ctx) => {
          const input = parse(loginSchema, requestBody(ctx));
          // ctx.ip honours X-Forwarded-For only when app.proxy (trustProxy) is on.
          const { self, cookie } = await accounts.login(input.username, input.password, ctx.ip, input.ttl);
          ctx.append('Set-Cookie', cookie.header);
          // The body carries the access key: no cache may keep it.
          ctx.set('Cache-Control', 'no-store');
          ctx.body = self;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/account',
      operationId: 'getAccount',
      tag: 'accounts',
      auth: true,
      summary: "The caller's account",
      responses: { ...always, 200: { description: 'the caller', schema: Self } },
      handle: ({ accounts }) => [
        (ctx) => {
          ctx.set('Cache-Control', 'no-store');
          ctx.body = accounts.selfFor(currentUser(ctx));
        },
      ],
    },
    {
      method: 'get',
      path: '/api/account/reset-key',
      operationId: 'resetAccessKey',
      tag: 'accounts',
      auth: 'account',
      summary: "Replace the caller's access key; the old one stops working at once",
      responses: {
        ...always,
        200: { description: 'the new key', schema: AccessKey },
        403: error('an app key cannot manage keys, passkeys or the account key'),
      },
      handle: ({ accounts }) => [
        (ctx) => {
          ctx.set('Cache-Control', 'no-store');
          ctx.body = accounts.resetKey(requireAccountCredential(ctx).id);
        },
      ],
    },
  ],
};
