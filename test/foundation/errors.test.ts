/**
 * Unexpected errors (docs/decisions.md §3: "No response ever carries a stack trace. A 500 is a bug."): a
 * failure the service did not anticipate answers 500 `{ "error": "internal error" }` and nothing
 * more, carries the request's `X-Request-Id`, and is logged (message and stack) under that id.
 *
 * The failure is forced through the public interface by the composition root: the real services,
 * with the post service swapped for one whose chosen method throws, handed to createApp. Nothing
 * about SQLite or Elasticsearch is mocked.
 */
import test from 'ava';
import { createApp } from '../../src/app.ts';
import { listen, type RunningServer } from '../../src/server.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

/** What the next call of a rigged method throws (or rejects with, for async methods). */
let thrown: { value: unknown } | undefined;
let app: TestApp;
let server: RunningServer;
let base: string;
let user: TestUser;
let postId: string;

const SECRET_DETAIL = 'SQLITE_CORRUPT: database disk image is malformed (/srv/imgpost/secret-path.sqlite)';

test.before(async () => {
  app = await startTestApp();
  user = await createUser(app, 0x2 | 0x4 | 0x2000);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(73_001), metadata: { text: 'kept' } }),
  });
  if (res.status !== 201) throw new Error(`setup upload: ${res.status}`);
  postId = (await res.json()).id;

  const real = app.services.postService;
  const rig = <F extends (...args: never[]) => unknown>(fn: F, async: boolean) =>
    ((...args: Parameters<F>) => {
      const failure = thrown;
      if (!failure) return fn.apply(real, args);
      thrown = undefined;
      if (async) return Promise.reject(failure.value);
      throw failure.value;
    }) as F;
  const postService = new Proxy(real, {
    get(target, prop) {
      if (prop === 'list') return rig(target.list, false); // GET /api/post/ (synchronous)
      if (prop === 'update') return rig(target.update, true); // PUT /api/post/[id] (asynchronous)
      return Reflect.get(target, prop);
    },
  });
  server = await listen(createApp({ ...app.services, postService }), '127.0.0.1', 0);
  base = `http://127.0.0.1:${server.port}`;
});
test.after.always(async () => {
  await server?.close(1000);
  await app?.close();
});

type Log = { level: string; msg: string; requestId?: string; status?: number; err?: unknown; route?: string | null };
const logsFor = (requestId: string): Log[] =>
  app.logs.map((l) => JSON.parse(l) as Log).filter((l) => l.requestId === requestId);

async function assertInternalError(t: import('ava').ExecutionContext, res: Response, describe: string) {
  const text = await res.text();
  t.is(res.status, 500, `${describe}: ${text}`);
  t.is(res.headers.get('content-type'), 'application/json; charset=utf-8', describe);
  t.deepEqual(JSON.parse(text), { error: 'internal error' }, describe);
  // Nothing of the failure leaks: no message, no stack frames, no file paths.
  t.notRegex(text, /SQLITE|secret|malformed|\bat \S+ \(|\.ts:\d+|node:internal|Error:/, describe);
  const requestId = res.headers.get('x-request-id');
  t.truthy(requestId, `${describe}: X-Request-Id`);
  return requestId!;
}

const rigs: { name: string; value: () => unknown }[] = [
  { name: 'an Error', value: () => new Error(SECRET_DETAIL) },
  {
    name: 'a TypeError',
    value: () => new TypeError(`Cannot read properties of undefined (reading 'secret') ${SECRET_DETAIL}`),
  },
  // koa-style errors: a 5xx status (exposed or not) is still an internal error, never passed through.
  {
    name: 'an error with status 503 and expose',
    value: () => Object.assign(new Error(SECRET_DETAIL), { status: 503, expose: true }),
  },
  { name: 'an error with statusCode 500', value: () => Object.assign(new Error(SECRET_DETAIL), { statusCode: 500 }) },
  { name: 'a string', value: () => SECRET_DETAIL },
  {
    name: 'a plain object',
    value: () => ({ message: SECRET_DETAIL, stack: `Error: ${SECRET_DETAIL}\n    at x (/srv/a.ts:1:1)` }),
  },
  { name: 'null', value: () => null },
  { name: 'undefined', value: () => undefined },
];

for (const [i, rigged] of rigs.entries()) {
  test.serial(
    `a synchronous dependency throwing ${rigged.name} is a bare 500 logged under the request id`,
    async (t) => {
      const sent = `err-probe-sync-${i}`;
      thrown = { value: rigged.value() };
      const res = await fetch(`${base}/api/post/?limit=1`, { headers: { 'X-Request-Id': sent } });
      const requestId = await assertInternalError(t, res, rigged.name);
      t.is(requestId, sent, 'a well-formed incoming request id is kept');
      t.is(thrown as unknown, undefined, 'the rigged method was reached');

      const lines = logsFor(sent);
      const error = lines.find((l) => l.level === 'error');
      t.truthy(error, JSON.stringify(lines));
      t.is(error!.msg, 'unexpected error');
      if (rigged.value() instanceof Error) {
        const err = error!.err as { message: string; stack: string };
        t.is(err.message, (rigged.value() as Error).message, 'the log keeps what the response hides');
        t.regex(err.stack, /\n\s+at /);
      }
      t.like(
        lines.find((l) => l.msg === 'request'),
        { status: 500, route: '/api/post' },
      );
    },
  );
}

test.serial('an asynchronous dependency rejecting is a bare 500; a generated request id is logged', async (t) => {
  thrown = { value: new Error(SECRET_DETAIL) };
  const res = await fetch(`${base}/api/post/${postId}`, {
    method: 'PUT',
    headers: { ...user.headers, 'Content-Type': 'application/json', 'X-Request-Id': 'not a valid id!' },
    body: JSON.stringify({ text: 'changed' }),
  });
  const requestId = await assertInternalError(t, res, 'PUT');
  t.not(requestId, 'not a valid id!', 'a malformed incoming id is replaced');
  t.regex(requestId, /^[0-9a-f-]{36}$/);
  const error = logsFor(requestId).find((l) => l.level === 'error');
  t.like(error, { msg: 'unexpected error', err: { message: SECRET_DETAIL } });
  // The failed write changed nothing, and the service carries on.
  const after = await fetch(`${base}/api/post/${postId}`);
  t.is(after.status, 200);
  t.is((await after.json()).text, 'kept');
  t.is((await fetch(`${base}/api/post/?limit=1`)).status, 200);
});

test.serial('expected errors are not logged as unexpected', async (t) => {
  const before = app.logs.filter((l) => /"level":"error"/.test(l)).length;
  t.is((await fetch(`${base}/api/post/01234567-89ab-7def-8123-456789abcdef`)).status, 404);
  t.is((await fetch(`${base}/api/post/?limit=-1`)).status, 400);
  t.is((await fetch(`${base}/api/account`)).status, 401);
  t.is(app.logs.filter((l) => /"level":"error"/.test(l)).length, before);
});
