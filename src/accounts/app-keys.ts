import crypto from 'node:crypto';
import { nowIso, type Db } from '../db/sqlite.ts';
import { AppError, invalid, notFound } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import { ACCESS_KEY_PATTERN, accessKeyDigest, generateAccessKey } from './access-keys.ts';
import { AppKeyRepository, type AppKeyRecord } from './app-key-repository.ts';
import { heldBits } from './permissions.ts';
import type { UserRepository } from './user-repository.ts';

/** docs/decisions.md §14 */
export const MAX_APP_KEYS = 20;
export const MAX_APP_KEY_NAME = 64;

export type AppKeyView = Omit<AppKeyRecord, 'userId'>;
const view = ({ id, name, permission, createdAt }: AppKeyRecord): AppKeyView => ({ id, name, permission, createdAt });

/**
 * App keys (docs/decisions.md §14): keys an account hands to a bot, each with a subset of the account's
 * permission. The key is shown once and kept as its SHA-256 digest; a request with one acts with
 * `key.permission & owner's current permission`, so lowering the owner lowers every key at once.
 */
export class AppKeyService {
  readonly keys: AppKeyRepository;

  constructor(
    private readonly db: Db,
    private readonly users: UserRepository,
  ) {
    this.keys = new AppKeyRepository(db);
  }

  create(owner: AuthUser, input: { name: string; permission: number }): AppKeyView & { key: string } {
    const extra = input.permission & ~heldBits(owner.permission);
    if (extra !== 0)
      throw invalid(['permission'], `permission asks for bits the account lacks: 0x${extra.toString(16)}`);
    return this.db
      .transaction(() => {
        if (this.keys.countOf(owner.id) >= MAX_APP_KEYS)
          throw new AppError('conflict', `an account has at most ${MAX_APP_KEYS} app keys; revoke one first`);
        for (let attempt = 0; ; attempt++) {
          const key = generateAccessKey();
          try {
            const id = this.keys.insert({
              userId: owner.id,
              name: input.name,
              permission: input.permission,
              createdAt: nowIso(),
              digest: accessKeyDigest(key),
            });
            return { ...view(this.keys.get(id)!), key };
          } catch (err) {
            // A digest collision (astronomically unlikely): draw again.
            if (attempt < 3 && (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') continue;
            throw err;
          }
        }
      })
      .immediate();
  }

  list(userId: number): AppKeyView[] {
    return this.keys.listOf(userId).map(view);
  }

  revoke(userId: number, id: number): void {
    if (!this.keys.delete(userId, id)) throw notFound('no such app key');
  }

  /** The caller an app key stands for, or undefined for an unknown, malformed or revoked key. */
  authenticate(key: string): AuthUser | undefined {
    if (!ACCESS_KEY_PATTERN.test(key)) return undefined;
    const digest = accessKeyDigest(key);
    const row = this.keys.getByDigest(digest);
    if (!row || !crypto.timingSafeEqual(row.digest, digest)) return undefined;
    const owner = this.users.getById(row.userId);
    if (!owner) return undefined;
    return {
      id: owner.id,
      name: owner.name,
      permission: row.permission & heldBits(owner.permission),
      appKeyId: row.id,
    };
  }
}
