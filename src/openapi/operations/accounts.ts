/** Log-in and the caller's account (docs/decisions.md §2). */
import { loginSchema } from '../../accounts/schemas.ts';
import { always, error, issues, json, retryAfter, signedIn, type Operation } from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

export const ACCOUNT_OPERATIONS: Operation[] = [
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
        schema: z.union([S.LoginFailure, S.ErrorBody]),
      },
      429: { ...error('too many failed logins for this name or address'), headers: retryAfter },
    },
  },
  {
    method: 'get',
    path: '/api/account',
    operationId: 'getAccount',
    tag: 'accounts',
    auth: true,
    summary: "The caller's account",
    responses: { ...always, 200: { description: 'the caller', schema: S.Self } },
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
      200: { description: 'the new key', schema: S.AccessKey },
      403: error('an app key cannot manage keys, passkeys or the account key'),
    },
  },
];
