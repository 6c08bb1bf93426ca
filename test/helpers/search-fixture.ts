import type { PostRecord } from '../../src/kernel/post-record.ts';
import { reindex } from '../../src/search/reindex.ts';
import { seedPosts, type SeedOptions, type SeedResult } from '../../tools/seed/seed.ts';
import { startTestApp, type TestApp } from './app.ts';

export interface SeededApp {
  app: TestApp;
  seed: SeedResult;
  /** every post as SQLite holds it, in number order */
  posts(): PostRecord[];
}

/** A test app with seeded posts, indexed through the real reindex. */
export async function startSeededApp(opts: SeedOptions, env: Record<string, string> = {}): Promise<SeededApp> {
  const app = await startTestApp({ LOG_LEVEL: 'warn', ...env });
  const seed = seedPosts(app.services.db, opts);
  // Nothing else writes to this test index, so the wait for other servers' relays can be short.
  await reindex(app.services, { settleMs: 50, retire: 'now' });
  return { app, seed, posts: () => [...app.services.postRepository.batches(2000)].flat() };
}

export async function postJson(
  app: TestApp,
  path: string,
  body: unknown,
  retry = true,
): Promise<{ status: number; body: any }> {
  const res = await app
    .request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    .catch((err: Error) => err);
  // A keep-alive socket the server closed just as it was reused (a loaded machine stretches that
  // race): searches are idempotent, so one retry on a fresh connection is what a client would do.
  if (res instanceof Error && retry) return postJson(app, path, body, false);
  // Reported as a status rather than thrown, so a test can say which of its queries broke.
  if (res instanceof Error)
    return { status: -1, body: `${res.message} (${String((res.cause as Error | undefined)?.message ?? res.cause)})` };
  return { status: res.status, body: await res.json() };
}

/** Runs `tasks` with at most `n` at a time; results in task order. */
export async function pool<T>(n: number, tasks: (() => Promise<T>)[]): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, tasks.length) }, worker));
  return out;
}
