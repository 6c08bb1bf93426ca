import crypto from 'node:crypto';
import http from 'node:http';
import { accessKeyDigest, generateAccessKey } from '../../src/accounts/access-keys.ts';
import type { TestApp } from '../helpers/app.ts';
import type { TestUser } from '../helpers/users.ts';

/**
 * Many users at once without scrypt (a storm needs 50 accounts; hashing 50 passwords would take
 * seconds): rows written through the accounts' own repository, with a hash no password matches.
 */
export function quickUsers(app: TestApp, count: number, permission = 6): TestUser[] {
  const users = app.services.accounts.users;
  return Array.from({ length: count }, () => {
    const name = `q${crypto.randomBytes(6).toString('hex')}`;
    const accessKey = generateAccessKey();
    const id = users.insert({ name, email: null, passwordHash: 'none', accessKey, accessKeyDigest: accessKeyDigest(accessKey), permission, createdAt: new Date().toISOString() });
    return { id, name, accessKey, headers: { 'X-Access-Key': accessKey } };
  });
}

export const jsonInit = (method: string, headers: Record<string, string>, body?: unknown): RequestInit => ({
  method,
  headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** A request from a chosen loopback address (fetch cannot bind one); app.proxy is off, so this is ctx.ip. */
export function requestFrom(localAddress: string, url: string, method: string, body?: unknown) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: unknown }>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(url, { method, localAddress, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
