import crypto from 'node:crypto';
import type { TestApp } from './app.ts';

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
