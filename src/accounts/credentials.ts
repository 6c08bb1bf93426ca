import { notFound } from '../errors.ts';
import type { AppKeyService, AppKeyView } from './app-keys.ts';

export interface PasskeySummary {
  id: number;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * A user's passkeys as `imgpost user` needs them. The passkeys table belongs to src/passkeys (its
 * repository implements this); accounts sit below that feature, so the composition root hands it in.
 */
export interface PasskeyList {
  summaries(userId: number): PasskeySummary[];
  delete(userId: number, id: number): boolean;
}

/** What `imgpost user keys` shows and revokes (docs/decisions.md §14): a user's app keys and passkeys. */
export class Credentials {
  constructor(
    private readonly appKeys: AppKeyService,
    private readonly passkeys: PasskeyList,
  ) {}

  of(userId: number): { appKeys: AppKeyView[]; passkeys: PasskeySummary[] } {
    return { appKeys: this.appKeys.list(userId), passkeys: this.passkeys.summaries(userId) };
  }

  revokeAppKey(userId: number, id: number): void {
    this.appKeys.revoke(userId, id);
  }

  revokePasskey(userId: number, id: string): void {
    const n = /^[1-9]\d{0,15}$/.test(id) ? Number(id) : 0;
    if (!n || !this.passkeys.delete(userId, n)) throw notFound('no such passkey of this user');
  }
}
