/**
 * Passkeys (docs/decisions.md §14). Options and credentials are WebAuthn's JSON forms; their outline is
 * described here and the WebAuthn specification has the rest (the server checks them with
 * @simplewebauthn/server).
 */
import { authenticationBody, loginOptionsBody, registrationBody } from '../../passkeys/schemas.ts';
import { always, error, issues, json, signedIn, type Operation } from '../operation-kit.ts';
import { z } from '../../util/zod.ts';

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

export const PASSKEY_OPERATIONS: Operation[] = [
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
  },
];
