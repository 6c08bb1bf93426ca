import type { TestApp } from './app.ts';
import type { TestUser } from './users.ts';

/** One JSON request as `user` (or nobody): the status and the parsed body (undefined when empty). */
export async function jsonCall(
  app: TestApp,
  user: TestUser | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: { ...(user?.headers ?? {}), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
