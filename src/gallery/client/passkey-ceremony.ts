/**
 * The browser half of passkeys (docs/decisions.md §14), with @simplewebauthn/browser: it turns the server's
 * options JSON into navigator.credentials calls and the credential back into JSON.
 */
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api, ok, type Self } from './api.ts';

type CreationOptions = Parameters<typeof startRegistration>[0]['optionsJSON'];
type RequestOptions = Parameters<typeof startAuthentication>[0]['optionsJSON'];

export async function addPasskey(name: string) {
  const options = (await ok(api.POST('/api/account/passkey/options'))) as unknown as CreationOptions;
  const credential = await startRegistration({ optionsJSON: options });
  return ok(api.POST('/api/account/passkey', { body: { ...credential, ...(name ? { name } : {}) } as never }));
}

export async function signInWithPasskey(): Promise<Self> {
  const options = (await ok(api.POST('/api/account/passkey/login/options', { body: {} }))) as unknown as RequestOptions;
  const assertion = await startAuthentication({ optionsJSON: options });
  return ok(api.POST('/api/account/passkey/login', { body: assertion as never }));
}

/** A browser's refusal (the person cancelled, no passkey here) in words. */
export const ceremonyText = (err: unknown) =>
  err instanceof Error && (err.name === 'NotAllowedError' || err.name === 'AbortError')
    ? 'The passkey request was cancelled or timed out.'
    : err instanceof Error
      ? err.message
      : String(err);
