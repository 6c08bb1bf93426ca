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

/**
 * One ceremony in the page: navigator.credentials.create or .get with the server's options JSON; the credential's JSON,
 * as a browser sends it.
 */
function ceremony(page: Page, kind: 'create' | 'get', options: unknown): Promise<Record<string, unknown>> {
  return page.evaluate(
    async ([json, which]) => {
      const credential = (
        which === 'create'
          ? await navigator.credentials.create({
              publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(
                json as PublicKeyCredentialCreationOptionsJSON,
              ),
            })
          : await navigator.credentials.get({
              publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(json as PublicKeyCredentialRequestOptionsJSON),
            })
      ) as PublicKeyCredential;
      return credential.toJSON() as unknown as Record<string, unknown>;
    },
    [options, kind] as const,
  );
}

export const createCredential = (page: Page, options: unknown) => ceremony(page, 'create', options);
export const getAssertion = (page: Page, options: unknown) => ceremony(page, 'get', options);
