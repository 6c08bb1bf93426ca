import crypto from 'node:crypto';
import type { TestApp } from './app.ts';

/**
 * PASSWORD_HASH_COST of the test apps, child servers and CLI runs: scrypt at its production cost (15)
 * is 32 MiB and ~0.1 s of a core per hash, and the suite hashes hundreds of passwords. What the
 * hashing itself does at the production cost is test/accounts/units.test.ts's to check.
 */
export const TEST_PASSWORD_HASH_COST = '10';

export interface TestUser {
  id: number;
  name: string;
  accessKey: string;
  headers: Record<string, string>;
}

/** Creates a user through the account service (as `imgpost user add` does). */
export async function createUser(
  app: TestApp,
  permission = 6,
  name = `u${crypto.randomBytes(5).toString('hex')}`,
): Promise<TestUser> {
  const self = await app.services.accounts.createUser({ name, password: 'correct horse battery', permission });
  return { id: self.id, name: self.name, accessKey: self.accessKey, headers: { 'X-Access-Key': self.accessKey } };
}
