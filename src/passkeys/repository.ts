import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/** A passkey as listed: never its public key (not a secret, but nobody needs it). */
export interface PasskeySummary {
  id: number;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export interface PasskeyRecord extends PasskeySummary {
  userId: number;
  credentialId: string;
  publicKey: Buffer;
  counter: number;
  transports: string[];
}

export interface ChallengeRecord {
  challenge: string;
  purpose: 'register' | 'login';
  userId: number | null;
  expiresAt: number;
}

const SUMMARY = 'id, name, created_at AS createdAt, last_used_at AS lastUsedAt';
const RECORD = `${SUMMARY}, user_id AS userId, credential_id AS credentialId, public_key AS publicKey, counter, transports`;

type Row = Omit<PasskeyRecord, 'transports'> & { transports: string };
const fromRow = (row: Row | undefined): PasskeyRecord | undefined =>
  row && { ...row, transports: JSON.parse(row.transports) as string[] };

/** SQLite access for passkeys and WebAuthn challenges (migration 012), the only owner of both tables. */
export class PasskeyRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(readonly db: Db) {
    this.stmt = statementCache(db);
  }

  insert(p: Omit<PasskeyRecord, 'id' | 'lastUsedAt'>): number {
    const info = this.stmt(
      'INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ).run(p.userId, p.credentialId, p.publicKey, p.counter, JSON.stringify(p.transports), p.name, p.createdAt);
    return Number(info.lastInsertRowid);
  }

  byCredentialId(credentialId: string): PasskeyRecord | undefined {
    return fromRow(
      this.stmt(`SELECT ${RECORD} FROM passkeys WHERE credential_id = ?`).get(credentialId) as Row | undefined,
    );
  }

  ofUser(userId: number): PasskeyRecord[] {
    return (this.stmt(`SELECT ${RECORD} FROM passkeys WHERE user_id = ? ORDER BY id`).all(userId) as Row[]).map(
      (r) => fromRow(r)!,
    );
  }

  summaries(userId: number): PasskeySummary[] {
    return this.stmt(`SELECT ${SUMMARY} FROM passkeys WHERE user_id = ? ORDER BY id`).all(userId) as PasskeySummary[];
  }

  count(userId: number): number {
    return (this.stmt('SELECT count(*) AS n FROM passkeys WHERE user_id = ?').get(userId) as { n: number }).n;
  }

  /** Only the owner's: another account's passkey is as absent as a missing one. */
  delete(userId: number, id: number): boolean {
    return this.stmt('DELETE FROM passkeys WHERE id = ? AND user_id = ?').run(id, userId).changes > 0;
  }

  used(id: number, counter: number, at: string): void {
    this.stmt('UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ?').run(counter, at, id);
  }

  saveChallenge(c: ChallengeRecord): void {
    // Expired challenges are swept as new ones are made, so the table stays as small as the ceremonies under way.
    this.stmt('DELETE FROM webauthn_challenges WHERE expires_at < ?').run(Date.now());
    this.stmt('INSERT INTO webauthn_challenges (challenge, purpose, user_id, expires_at) VALUES (?, ?, ?, ?)').run(
      c.challenge,
      c.purpose,
      c.userId,
      c.expiresAt,
    );
  }

  /** Deletes and returns the challenge in one statement: of two answers naming it, only one gets it (single use). */
  takeChallenge(challenge: string, purpose: ChallengeRecord['purpose']): ChallengeRecord | undefined {
    return this.stmt(
      'DELETE FROM webauthn_challenges WHERE challenge = ? AND purpose = ? RETURNING challenge, purpose, user_id AS userId, expires_at AS expiresAt',
    ).get(challenge, purpose) as ChallengeRecord | undefined;
  }
}
