import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { signedIn } from '../accounts/account-shapes.ts';
import { requireAccountCredential } from '../accounts/permissions.ts';
import { notFound } from '../errors.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppContext } from '../http/context.ts';
import { always, error, issues, json, type Feature } from '../http/endpoint.ts';
import { parse } from '../http/validate.ts';
import { z } from '../util/zod.ts';
import { authenticationBody, loginOptionsBody, registrationBody } from './schemas.ts';
import type { PasskeyService } from './service.ts';

const idParam = (ctx: AppContext): number => {
  const id = /^[1-9]\d{0,15}$/.test(ctx.params.id ?? '') ? Number(ctx.params.id) : NaN;
  if (!Number.isSafeInteger(id)) throw notFound('no such passkey of yours');
  return id;
};

/*
 * Passkeys (docs/decisions.md §14). Options and credentials are WebAuthn's JSON forms; their outline is
 * described here and the WebAuthn specification has the rest (the server checks them with
 * @simplewebauthn/server).
 */

const CreationOptions = z
  .object({
    challenge: z.string(),
    rp: z.object({ id: z.string().optional(), name: z.string() }).passthrough(),
    user: z.object({ id: z.string(), name: z.string(), displayName: z.string() }).passthrough(),
    pubKeyCredParams: z.array(z.object({ type: z.literal('public-key'), alg: z.number().int() })),
  })
  .passthrough()
  .openapi('PublicKeyCredentialCreationOptionsJSON', {
    description: "WebAuthn's JSON form; pass it to navigator.credentials.create (or startRegistration)",
  });
const RequestOptions = z
  .object({ challenge: z.string(), rpId: z.string().optional() })
  .passthrough()
  .openapi('PublicKeyCredentialRequestOptionsJSON', {
    description: "WebAuthn's JSON form; pass it to navigator.credentials.get (or startAuthentication)",
  });
const Passkey = z
  .object({ id: z.number().int(), name: z.string(), createdAt: z.string(), lastUsedAt: z.string().nullable() })
  .strict()
  .openapi('Passkey', { description: 'A registered passkey (never its key material)' });

const appKeyOnly = error('an app key cannot manage passkeys');
const noRelyingParty = error(
  "PUBLIC_URL's host is an IP address: browsers accept only a domain as relying party, so passkeys are off",
);

/**
 * docs/decisions.md §14: passkeys. Registering, listing and removing need the account itself (a session or
 * the account key): an app key is 403. Signing in needs nothing but the passkey.
 */
export const passkeysFeature: Feature<{ passkeys: PasskeyService }> = {
  name: 'passkeys',
  endpoints: [
    {
      method: 'post',
      path: '/api/account/passkey/options',
      operationId: 'passkeyRegistrationOptions',
      tag: 'accounts',
      auth: 'account',
      summary: 'Options for registering a passkey; the challenge answers once, within 5 minutes',
      responses: {
        ...always,
        200: { description: 'creation options', schema: CreationOptions },
        403: appKeyOnly,
        409: noRelyingParty,
      },
      handle: ({ passkeys }) => [
        async (ctx) => {
          const user = requireAccountCredential(ctx);
          ctx.set('Cache-Control', 'no-store');
          ctx.body = await passkeys.registrationOptions(user);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/account/passkey',
      operationId: 'registerPasskey',
      tag: 'accounts',
      auth: 'account',
      summary: "Register a passkey: the credential's JSON (PublicKeyCredential.toJSON()), optionally with a name",
      request: { body: { required: true, ...json(registrationBody) } },
      responses: {
        ...always,
        201: { description: 'the passkey', schema: Passkey },
        400: issues(
          'not a credential, or it did not verify (unknown, used or expired challenge; another origin or relying party)',
        ),
        403: appKeyOnly,
        409: error('this passkey is registered already, the account has 20, or PUBLIC_URL is an IP address'),
      },
      handle: ({ passkeys }) => [
        jsonBody(),
        async (ctx) => {
          const user = requireAccountCredential(ctx);
          const body = parse(registrationBody, requestBody(ctx)) as unknown as RegistrationResponseJSON & {
            name?: string;
          };
          ctx.status = 201;
          ctx.body = await passkeys.register(user, body);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/account/passkey/login/options',
      operationId: 'passkeyLoginOptions',
      tag: 'accounts',
      summary: "Options for signing in with a passkey; with a username, only that account's passkeys may answer",
      request: { body: { required: false, ...json(loginOptionsBody) } },
      responses: {
        ...always,
        200: { description: 'request options', schema: RequestOptions },
        400: issues(),
        409: noRelyingParty,
      },
      handle: ({ passkeys }) => [
        jsonBody(),
        async (ctx) => {
          const { username } = parse(loginOptionsBody, optionalBody(ctx));
          ctx.set('Cache-Control', 'no-store');
          ctx.body = await passkeys.loginOptions(username);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/account/passkey/login',
      operationId: 'passkeyLogin',
      tag: 'accounts',
      summary: "Sign in with a passkey: the assertion's JSON; returns Self and sets the session cookie",
      request: { body: { required: true, ...json(authenticationBody) } },
      responses: {
        ...always,
        200: signedIn('signed in'),
        400: issues('not an assertion'),
        401: error(
          "refused: unknown passkey, unknown, used or expired challenge, another origin or relying party, another account's passkey, or a bad signature",
        ),
        409: noRelyingParty,
      },
      handle: ({ passkeys }) => [
        jsonBody(),
        async (ctx) => {
          const body = parse(authenticationBody, requestBody(ctx)) as unknown as AuthenticationResponseJSON;
          const { self, cookie } = await passkeys.login(body);
          ctx.append('Set-Cookie', cookie.header);
          // The body carries the access key: no cache may keep it.
          ctx.set('Cache-Control', 'no-store');
          ctx.body = self;
        },
      ],
    },
    {
      method: 'get',
      path: '/api/account/passkeys',
      operationId: 'listPasskeys',
      tag: 'accounts',
      auth: 'account',
      summary: "The caller's passkeys",
      responses: {
        ...always,
        200: { description: 'the passkeys', schema: z.array(Passkey) },
        403: appKeyOnly,
        409: noRelyingParty,
      },
      handle: ({ passkeys }) => [
        (ctx) => {
          ctx.body = passkeys.list(requireAccountCredential(ctx).id);
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/account/passkeys/{id}',
      operationId: 'deletePasskey',
      tag: 'accounts',
      auth: 'account',
      summary: "Remove one of the caller's passkeys",
      request: { params: z.object({ id: z.string() }) },
      responses: {
        ...always,
        204: { description: 'removed' },
        403: appKeyOnly,
        404: error("no such passkey of the caller's"),
        409: noRelyingParty,
      },
      handle: ({ passkeys }) => [
        (ctx) => {
          passkeys.remove(requireAccountCredential(ctx).id, idParam(ctx));
          ctx.status = 204;
        },
      ],
    },
  ],
};
