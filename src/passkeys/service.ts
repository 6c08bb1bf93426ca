import net from 'node:net';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { nowIso } from '../db/sqlite.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import type { Logger } from '../log.ts';
import type { AccountService } from '../accounts/service.ts';
import { issueCookie, type IssuedCookie } from '../accounts/session-cookie.ts';
import type { Self } from '../accounts/user-repository.ts';
import { PasskeyRepository, type ChallengeRecord, type PasskeySummary } from './repository.ts';

// Loaded at the first ceremony, not at start-up: a start-up cost (bench/notes/code-figures.md) that
// every CLI process and most servers never need.
const webauthn = () => import('@simplewebauthn/server');

/** docs/decisions.md §14: a challenge answers once, within 5 minutes. */
export const CHALLENGE_TTL_MS = 5 * 60_000;
export const MAX_PASSKEYS = 20;

/** The relying party: PUBLIC_URL's host and origin, or why there is none (browsers refuse an IP address). */
export function relyingParty(publicUrl: string): { id: string; origin: string } | { refused: string } {
  const url = new URL(publicUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host))
    return { refused: `passkeys need PUBLIC_URL to name a domain (localhost included), not the IP address ${host}` };
  return { id: host, origin: url.origin };
}

/** The challenge a credential answers, read from its clientDataJSON (the library checks it again). */
function challengeOf(clientDataJSON: unknown): string | undefined {
  if (typeof clientDataJSON !== 'string') return undefined;
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

/** What every ceremony is checked against: the stored challenge, PUBLIC_URL's origin and host. */
const expected = (challenge: ChallengeRecord, rp: { id: string; origin: string }) => ({
  expectedChallenge: challenge.challenge,
  expectedOrigin: rp.origin,
  expectedRPID: rp.id,
  // Presence is required; verification (PIN, biometrics) is the authenticator's and the person's choice.
  requireUserVerification: false,
});

/** The library's verdict; its exceptions (a wrong origin, a bad signature...) become the refusal with its words. */
async function verifiedBy<T>(refuse: (why: string) => AppError, verify: () => Promise<T>): Promise<T> {
  try {
    return await verify();
  } catch (err) {
    throw refuse((err as Error).message);
  }
}

/**
 * Passkeys (docs/decisions.md §14) on @simplewebauthn/server: the library does every check of a ceremony
 * (challenge, origin, relying party, signature, counter); this service keeps the challenges
 * single-use and short-lived in SQLite and ties credentials to accounts.
 */
export class PasskeyService {
  readonly repo: PasskeyRepository;

  constructor(
    private readonly deps: { accounts: AccountService; config: { publicUrl: string }; log: Logger; now?: () => number },
  ) {
    this.repo = new PasskeyRepository(deps.accounts.db);
  }

  private get now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  /** Read per request, so a changed PUBLIC_URL (tests set it after listening) counts at once. */
  private rp(): { id: string; origin: string } {
    const rp = relyingParty(this.deps.config.publicUrl);
    if ('refused' in rp) throw new AppError('conflict', rp.refused);
    return rp;
  }

  private issue(challenge: string, purpose: ChallengeRecord['purpose'], userId: number | null): void {
    this.repo.saveChallenge({ challenge, purpose, userId, expiresAt: this.now + CHALLENGE_TTL_MS });
  }

  /** Single use: the challenge is gone after this, whatever the verdict. */
  private take(
    response: { response?: { clientDataJSON?: unknown } },
    purpose: ChallengeRecord['purpose'],
    refuse: (why: string) => AppError,
  ): ChallengeRecord {
    const challenge = challengeOf(response.response?.clientDataJSON);
    const record = challenge ? this.repo.takeChallenge(challenge, purpose) : undefined;
    if (!record) throw refuse('unknown or already used challenge: ask for new options');
    if (record.expiresAt < this.now) throw refuse('the challenge expired: ask for new options');
    return record;
  }

  async registrationOptions(user: AuthUser): Promise<PublicKeyCredentialCreationOptionsJSON> {
    const rp = this.rp();
    const existing = this.repo.ofUser(user.id);
    if (existing.length >= MAX_PASSKEYS)
      throw new AppError('conflict', `an account has at most ${MAX_PASSKEYS} passkeys`);
    const options = await (await webauthn()).generateRegistrationOptions({
      rpName: 'imgpost',
      rpID: rp.id,
      userName: user.name,
      userID: new TextEncoder().encode(String(user.id)),
      attestationType: 'none',
      // A passkey the browser already holds for this account is not registered twice.
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports as never })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    });
    this.issue(options.challenge, 'register', user.id);
    return options;
  }

  async register(user: AuthUser, body: RegistrationResponseJSON & { name?: string }): Promise<PasskeySummary> {
    const rp = this.rp();
    const refuse = (why: string) => invalid([], `passkey not registered: ${why}`);
    const challenge = this.take(body, 'register', refuse);
    if (challenge.userId !== user.id) throw refuse('the options were made for another account');
    const verified = await verifiedBy(refuse, async () =>
      (await webauthn()).verifyRegistrationResponse({ response: body, ...expected(challenge, rp) }),
    );
    if (!verified.verified || !verified.registrationInfo) throw refuse("the authenticator's answer did not verify");
    const { credential } = verified.registrationInfo;
    if (this.repo.byCredentialId(credential.id)) throw new AppError('conflict', 'this passkey is registered already');
    if (this.repo.count(user.id) >= MAX_PASSKEYS)
      throw new AppError('conflict', `an account has at most ${MAX_PASSKEYS} passkeys`);
    const createdAt = nowIso();
    const name = body.name?.trim() || `Passkey ${createdAt.slice(0, 10)}`;
    const id = this.repo.insert({
      userId: user.id,
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports ?? [],
      name,
      createdAt,
    });
    this.deps.log.info('passkey registered', { userId: user.id, passkeyId: id });
    return { id, name, createdAt, lastUsedAt: null };
  }

  /** Options for signing in; with a username, only that account's passkeys may answer. */
  async loginOptions(username?: string): Promise<PublicKeyCredentialRequestOptionsJSON> {
    const rp = this.rp();
    const user = username ? this.deps.accounts.users.getByName(username) : undefined;
    // An unknown name gets options like any other (no account probing); no passkey can answer them.
    const allow = user
      ? this.repo.ofUser(user.id).map((p) => ({ id: p.credentialId, transports: p.transports as never }))
      : undefined;
    const options = await (await webauthn()).generateAuthenticationOptions({
      rpID: rp.id,
      userVerification: 'preferred',
      ...(allow ? { allowCredentials: allow } : {}),
    });
    this.issue(options.challenge, 'login', username ? (user?.id ?? 0) : null);
    return options;
  }

  async login(body: AuthenticationResponseJSON): Promise<{ self: Self; cookie: IssuedCookie }> {
    const rp = this.rp();
    const refuse = (why: string) => new AppError('unauthenticated', `passkey sign-in failed: ${why}`);
    const challenge = this.take(body, 'login', refuse);
    const passkey = typeof body.id === 'string' ? this.repo.byCredentialId(body.id) : undefined;
    if (!passkey) throw refuse('unknown passkey');
    if (challenge.userId !== null && challenge.userId !== passkey.userId)
      throw refuse('this passkey belongs to another account');
    const credential = {
      id: passkey.credentialId,
      publicKey: new Uint8Array(passkey.publicKey),
      counter: passkey.counter,
      transports: passkey.transports as never,
    };
    const verified = await verifiedBy(refuse, async () =>
      (await webauthn()).verifyAuthenticationResponse({ response: body, credential, ...expected(challenge, rp) }),
    );
    if (!verified.verified) throw refuse('the signature did not verify');
    this.repo.used(passkey.id, verified.authenticationInfo.newCounter, nowIso());
    const self = this.deps.accounts.self(passkey.userId);
    this.deps.log.info('signed in with a passkey', { userId: self.id, passkeyId: passkey.id });
    return { self, cookie: issueCookie(this.deps.accounts.sessions, self.id) };
  }

  list(userId: number): PasskeySummary[] {
    this.rp();
    return this.repo.summaries(userId);
  }

  remove(userId: number, id: number): void {
    this.rp();
    if (!this.repo.delete(userId, id)) throw notFound('no such passkey of yours');
  }
}
