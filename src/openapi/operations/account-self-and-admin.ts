/**
 * Sign-up, app keys, preferences and user admin (docs/decisions.md §14). Request
 * schemas are the routes' own; the response shapes are described here, beside their operations.
 */
import {
  appKeySchema,
  preferencesSchema,
  registerSchema,
  userListQuery,
  userPatchSchema,
} from '../../accounts/schemas.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  retryAfter,
  signedIn,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

const Permission = z.number().int().min(0).max(0xffff);

const AppKey = z
  .object({ id: z.number().int(), name: z.string(), permission: Permission, createdAt: z.string() })
  .strict()
  .openapi('AppKey', { description: 'An app key as listed: never the key itself' });
const NewAppKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    permission: Permission,
    key: z.string().regex(/^[A-Za-z0-9_]{43}$/),
    createdAt: z.string(),
  })
  .strict()
  .openapi('NewAppKey', { description: 'The key is shown this once; send it as X-Access-Key' });
const UserSummary = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    permission: Permission,
    createdAt: z.string(),
  })
  .strict()
  .openapi('UserSummary', { description: 'An account as user admins see it: never a key or password hash' });
const UserPage = z
  .object({ count: z.number().int(), data: z.array(UserSummary) })
  .strict()
  .openapi('UserPage');
const Preferences = z
  .object({
    ratings: z.array(S.Rating),
    // docs/decisions.md §18
    blacklist: z.array(z.string().max(200)).max(100).openapi({
      description: 'lines of tags separated by spaces: a post carrying all of them (and none marked -tag) is hidden',
    }),
  })
  .strict()
  .openapi('Preferences');

const appKeyOnly = error('an app key cannot manage keys, passkeys or the account key');
const userId = z.object({ id: z.string().openapi({ description: 'the user id' }) });
const noUser = error('no user with this id');
const lastSuperUser = error('the last super user cannot be demoted or deleted');

export const ACCOUNT_SELF_OPERATIONS: Operation[] = [
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
  },
  {
    method: 'get',
    path: '/api/account/keys',
    operationId: 'listAppKeys',
    tag: 'accounts',
    auth: 'account',
    summary: "The caller's app keys (without the keys)",
    responses: { ...always, 200: { description: 'the keys', schema: z.array(AppKey) }, 403: appKeyOnly },
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
  },
];

/** User administration (0x1), after the favorites in the document. */
export const USER_ADMIN_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/user',
    operationId: 'listUsers',
    tag: 'accounts',
    auth: true,
    summary: 'Accounts whose name starts with prefix (needs 0x100)',
    request: {
      query: documentedQuery(userListQuery, {
        prefix: 'name prefix, any case',
        offset: 'results to skip',
        limit: 'page size; above 200 lowered to 200',
      }),
    },
    responses: { ...always, 200: { description: 'a page of users', schema: UserPage }, 400: issues(), 403: forbidden },
  },
  {
    method: 'patch',
    path: '/api/user/{id}',
    operationId: 'updateUser',
    tag: 'accounts',
    auth: true,
    summary:
      "Change a user's name or email (0x200 for another's) or permission (0x800; only bits the caller holds, 0x1 only by a super user)",
    request: { params: userId, body: { required: true, ...json(userPatchSchema) } },
    responses: {
      ...always,
      200: { description: 'the user', schema: UserSummary },
      400: issues(),
      403: forbidden,
      404: noUser,
      409: error('the name is taken, or the last super user would lose the bit'),
    },
  },
  {
    method: 'delete',
    path: '/api/user/{id}',
    operationId: 'deleteUser',
    tag: 'accounts',
    auth: true,
    summary: 'Delete a user (0x400): their posts stay, disowned; their keys, favorites and webhooks go',
    request: { params: userId },
    responses: { ...always, 204: { description: 'deleted' }, 403: forbidden, 404: noUser, 409: lastSuperUser },
  },
];
