import crypto from 'node:crypto';
import { accessKeyDigest, generateAccessKey } from '../../src/accounts/access-keys.ts';
import type { TestApp } from './app.ts';
import type { TestUser } from './users.ts';

/**
 * Many users at once without scrypt (a storm needs 50 accounts; hashing 50 passwords would take
 * seconds): rows written through the accounts' own repository, with a hash no password matches.
 */
export function quickUsers(app: TestApp, count: number, permission = 6): TestUser[] {
  const users = app.services.accounts.users;
  return Array.from({ length: count }, () => {
    const name = `q${crypto.randomBytes(6).toString('hex')}`;
    const accessKey = generateAccessKey();
    const id = users.insert({
      name,
      email: null,
      passwordHash: 'none',
      accessKey,
      accessKeyDigest: accessKeyDigest(accessKey),
      permission,
      createdAt: new Date().toISOString(),
    });
    return { id, name, accessKey, headers: { 'X-Access-Key': accessKey } };
  });
}

export const jsonInit = (method: string, headers: Record<string, string>, body?: unknown): RequestInit => ({
  method,
  headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
