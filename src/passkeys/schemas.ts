import { z } from 'zod';

/**
 * Request bodies of the passkey endpoints (docs/decisions.md §14): WebAuthn's JSON forms, what
 * `PublicKeyCredential.toJSON()` and @simplewebauthn/browser send. Only the outline is checked
 * here (a clear 400 for a body that is not a credential at all); the library checks the rest.
 */
const b64url = z
  .string()
  .regex(/^[A-Za-z0-9_-]*$/, 'base64url expected')
  .max(16_384);

const credentialBase = {
  id: b64url.min(1),
  rawId: b64url.min(1),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

export const registrationBody = z
  .object({
    ...credentialBase,
    response: z
      .object({
        clientDataJSON: b64url.min(1),
        attestationObject: b64url.min(1),
        transports: z.array(z.string().max(32)).max(16).optional(),
      })
      .passthrough(),
    name: z.string().trim().max(64, 'name is at most 64 characters').optional(),
  })
  .passthrough();

export const authenticationBody = z
  .object({
    ...credentialBase,
    response: z
      .object({
        clientDataJSON: b64url.min(1),
        authenticatorData: b64url.min(1),
        signature: b64url.min(1),
        userHandle: b64url.optional(),
      })
      .passthrough(),
  })
  .passthrough();

/** POST /api/account/passkey/login/options: optionally for one account (then only its passkeys may answer). */
export const loginOptionsBody = z.object({ username: z.string().min(1).max(64).optional() });
