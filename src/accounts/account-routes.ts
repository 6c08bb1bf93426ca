import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import { always, error, issues, json, retryAfter, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { Rating } from '../kernel/shapes.ts';
import { notFound } from '../errors.ts';
import { z } from '../util/zod.ts';
import { signedIn } from './account-shapes.ts';
import { currentUser, requireAccountCredential } from './permissions.ts';
import type { PreferenceStore } from './preferences.ts';
import { appKeySchema, preferencesSchema, registerSchema } from './schemas.ts';
import type { AccountService } from './service.ts';

const appKeyId = (ctx: AppContext): number => {
  const id = /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;
  if (!Number.isSafeInteger(id)) throw notFound('no such app key');
  return id;
};

const Permission = z.number().int().min(0).max(0xffff);

export const AppKey = z
  .object({ id: z.number().int(), name: z.string(), permission: Permission, createdAt: z.string() })
  .strict()
  .openapi('AppKey', { description: 'An app key as listed: never the key itself' });
export const NewAppKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    permission: Permission,
    key: z.string().regex(/^[A-Za-z0-9_]{43}$/),
    createdAt: z.string(),
  })
  .strict()
  .openapi('NewAppKey', { description: 'The key is shown this once; send it as X-Access-Key' });
export const UserSummary = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    permission: Permission,
    createdAt: z.string(),
  })
  .strict()
  .openapi('UserSummary', { description: 'An account as user admins see it: never a key or password hash' });
export const UserPage = z
  .object({ count: z.number().int(), data: z.array(UserSummary) })
  .strict()
  .openapi('UserPage');
export const Preferences = z
  .object({
    ratings: z.array(Rating),
    // docs/decisions.md §18
    blacklist: z.array(z.string().max(200)).max(100).openapi({
      description: 'lines of tags separated by spaces: a post carrying all of them (and none marked -tag) is hidden',
    }),
  })
  .strict()
  .openapi('Preferences');

const appKeyOnly = error('an app key cannot manage keys, passkeys or the account key');

/** docs/decisions.md §14: sign-up, app keys and preferences. */
export const accountSettingsFeature: Feature<{ accounts: AccountService; preferences: PreferenceStore }> = {
  name: 'account-settings',
  endpoints: [
    {
      method: 'post',
      path: '/api/account/register',
      operationId: 'register',
      tag: 'accounts',
      summary: 'Sign up (when REGISTRATION=open): returns Self and sets the session cookie',
      request: { body: { required: true, ...json(registerSchema) } },
      responses: {
        ...always,
        201: signedIn('the new account'),
        400: issues(
          'a name of 4 to 32 letters, digits or underscores and a password of at least 8 characters are needed',
        ),
        403: error('sign-up is closed'),
        409: error('the name is taken'),
        429: { ...error('too many sign-ups from this address'), headers: retryAfter },
      },
      handle: ({ accounts }) => [
        jsonBody(),
        async (ctx) => {
          const input = parse(registerSchema, requestBody(ctx));
          const { self, cookie } = await accounts.register(input, ctx.ip);
          ctx.append('Set-Cookie', cookie.header);
          ctx.set('Cache-Control', 'no-store');
          ctx.status = 201;
          ctx.body = self;
        },
      ],
    },
    {
      method: 'post',
      path: '/api/account/keys',
      operationId: 'createAppKey',
      tag: 'accounts',
      auth: 'account',
      summary: "Create an app key with a subset of the caller's permission (at most 20 per account)",
      request: { body: { required: true, ...json(appKeySchema) } },
      responses: {
        ...always,
        201: { description: 'the key, shown once', schema: NewAppKey },
        400: issues('a bit the account lacks, or a bad name'),
        403: appKeyOnly,
        409: error('the account has 20 app keys already'),
      },
      handle: ({ accounts }) => [
        jsonBody(),
        (ctx) => {
          const owner = requireAccountCredential(ctx);
          const input = parse(appKeySchema, requestBody(ctx));
          ctx.set('Cache-Control', 'no-store');
          ctx.status = 201;
          ctx.body = accounts.appKeys.create(owner, input);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/account/keys',
      operationId: 'listAppKeys',
      tag: 'accounts',
      auth: 'account',
      summary: "The caller's app keys (without the keys)",
      responses: { ...always, 200: { description: 'the keys', schema: z.array(AppKey) }, 403: appKeyOnly },
      handle: ({ accounts }) => [
        (ctx) => {
          ctx.body = accounts.appKeys.list(requireAccountCredential(ctx).id);
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/account/keys/{id}',
      operationId: 'revokeAppKey',
      tag: 'accounts',
      auth: 'account',
      summary: 'Revoke an app key; it stops working at once',
      request: { params: z.object({ id: z.string() }) },
      responses: {
        ...always,
        204: { description: 'revoked' },
        403: appKeyOnly,
        404: error("no such key of the caller's"),
      },
      handle: ({ accounts }) => [
        (ctx) => {
          const owner = requireAccountCredential(ctx);
          accounts.appKeys.revoke(owner.id, appKeyId(ctx));
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/account/preferences',
      operationId: 'getPreferences',
      tag: 'accounts',
      auth: true,
      summary:
        'The ratings the caller wants to see (default none and moderate) and their blacklist; the gallery applies them',
      responses: { ...always, 200: { description: 'the preferences', schema: Preferences } },
      handle: ({ preferences }) => [
        (ctx) => {
          ctx.body = preferences.get(currentUser(ctx).id);
        },
      ],
    },
    {
      method: 'put',
      path: '/api/account/preferences',
      operationId: 'setPreferences',
      tag: 'accounts',
      auth: true,
      summary: 'Set the ratings the caller wants to see and/or their blacklist (a field left out is kept)',
      request: { body: { required: true, ...json(preferencesSchema) } },
      responses: { ...always, 200: { description: 'the preferences as stored', schema: Preferences }, 400: issues() },
      handle: ({ preferences }) => [
        jsonBody(),
        (ctx) => {
          ctx.body = preferences.set(currentUser(ctx).id, parse(preferencesSchema, requestBody(ctx)));
        },
      ],
    },
  ],
};
