/**
 * A real WebAuthn authenticator for tests: Chromium's virtual authenticator (DevTools protocol
 * `WebAuthn.enable` + `WebAuthn.addVirtualAuthenticator`), driven through playwright-core's CDP
 * session. The page must be on the relying party's origin (http://localhost:PORT).
 */
import type { Page } from 'playwright-core';

export async function addVirtualAuthenticator(page: Page): Promise<{ authenticatorId: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  return (await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })) as { authenticatorId: string };
}

/** navigator.credentials.create with the server's options JSON; the credential's JSON, as a browser sends it. */
export function createCredential(page: Page, options: unknown): Promise<Record<string, unknown>> {
  return page.evaluate(async (json) => {
    const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(json as PublicKeyCredentialCreationOptionsJSON);
    const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
    return credential.toJSON() as unknown as Record<string, unknown>;
  }, options);
}

/** navigator.credentials.get with the server's options JSON; the assertion's JSON. */
export function getAssertion(page: Page, options: unknown): Promise<Record<string, unknown>> {
  return page.evaluate(async (json) => {
    const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(json as PublicKeyCredentialRequestOptionsJSON);
    const credential = (await navigator.credentials.get({ publicKey })) as PublicKeyCredential;
    return credential.toJSON() as unknown as Record<string, unknown>;
  }, options);
}
