/**
 * The per-user upload rate limit over HTTP (src/http/rate-limit.ts): a signed-in user who keeps
 * uploading to `POST /api/post/` is refused with 429, `Retry-After` and the `RateLimit-*` headers,
 * nothing of the refused upload is stored, and other users keep uploading. The budget is kept per
 * user *and* per client address, so the other user uploads from another loopback address here
 * (same address: that address's budget is spent too, which the last test shows).
 */
import fs from 'node:fs';
import http from 'node:http';
import test from 'ava';
import { startTestApp, thumbnailsSettled, type TestApp } from '../helpers/app.ts';
import { encodedUploadForm, randomImage } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

// One token back every 10 s. An upload takes about half a second (it waits until the post is
// searchable), so a user runs out of six well before one comes back.
const PER_MINUTE = 6;

let app: TestApp;
let seed = 52_000;

test.before(async () => {
  // Writes keep their default budget (600): uploads are the tighter class and must bind first.
  app = await startTestApp({ RATE_LIMIT_UPLOADS_PER_MINUTE: String(PER_MINUTE), LOG_LEVEL: 'warn' });
});
test.after.always(() => app?.close());

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: any;
}

/** An upload from a chosen loopback source address (every 127/8 address reaches 127.0.0.1 on Linux). */
async function upload(user: TestUser, localAddress: string): Promise<Reply> {
  const { type, body } = await encodedUploadForm({ image: await randomImage(seed++), metadata: { text: 'limit' } });
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: app.server.port,
        method: 'POST',
        path: '/api/post/',
        localAddress,
        headers: {
          ...user.headers,
          'Content-Type': type,
          'Content-Length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const postCount = () => app.services.db.prepare('SELECT COUNT(*) FROM posts').pluck().get() as number;

test.serial(
  'a user past the upload limit gets 429 with Retry-After and RateLimit headers; another user still uploads',
  async (t) => {
    const alice = await createUser(app);
    const bob = await createUser(app);

    // Alice uploads until refused. Tokens trickle back while she does, so a few more than the limit may pass.
    const accepted: Reply[] = [];
    let refused: Reply | undefined;
    for (let i = 0; i < PER_MINUTE + 4 && !refused; i++) {
      const res = await upload(alice, '127.0.0.1');
      if (res.status === 429) refused = res;
      else accepted.push(res);
    }
    t.truthy(refused, `no 429 after ${accepted.length} uploads`);
    t.true(accepted.length >= PER_MINUTE && accepted.length <= PER_MINUTE + 1, `${accepted.length} uploads accepted`);
    for (const [i, res] of accepted.entries()) {
      t.is(res.status, 201, `upload ${i}: ${JSON.stringify(res.body)}`);
      t.is(
        res.headers['ratelimit-limit'],
        String(PER_MINUTE),
        `upload ${i}: the upload budget, not the write budget, is reported`,
      );
      t.regex(String(res.headers['ratelimit-remaining']), /^\d+$/);
      t.regex(String(res.headers['ratelimit-reset']), /^\d+$/);
    }
    t.is(accepted[0].headers['ratelimit-remaining'], String(PER_MINUTE - 1));
    t.is(accepted.at(-1)!.headers['ratelimit-remaining'], '0');

    const stored = postCount();
    t.is(stored, accepted.length);
    t.is(refused!.status, 429);
    t.regex(refused!.body.error, /too many requests/);
    t.is(refused!.headers['content-type'], 'application/json; charset=utf-8');
    const retryAfter = Number(refused!.headers['retry-after']);
    t.true(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60 / PER_MINUTE,
      `Retry-After: ${refused!.headers['retry-after']}`,
    );
    t.is(refused!.headers['ratelimit-limit'], String(PER_MINUTE));
    t.is(refused!.headers['ratelimit-remaining'], '0');
    t.true(Number(refused!.headers['ratelimit-reset']) >= 1);
    t.truthy(refused!.headers['x-request-id']);

    // The user's budget follows her to another address.
    const elsewhere = await upload(alice, '127.0.0.3');
    t.is(elsewhere.status, 429, 'same user, other address');
    t.true(Number(elsewhere.headers['retry-after']) >= 1);

    // Another user, from another address, is not affected.
    const other = await upload(bob, '127.0.0.2');
    t.is(other.status, 201, JSON.stringify(other.body));
    t.is(other.headers['ratelimit-remaining'], String(PER_MINUTE - 1), 'a fresh budget of his own');

    // Refused uploads stored nothing and left no temp file (once the accepted ones' thumbnails, made
    // after their responses through the same directory, are done).
    t.is(postCount(), stored + 1);
    await thumbnailsSettled(app);
    t.deepEqual(fs.readdirSync(app.services.images.tmpDir), []);

    // Reads are never limited, even for the throttled user.
    t.is((await app.request('/api/post/?limit=1', { headers: alice.headers })).status, 200);

    // Retry-After is honest: after waiting that long, the next upload goes through.
    await new Promise((r) => setTimeout(r, Number(refused!.headers['retry-after']) * 1000 + 100));
    const again = await upload(alice, '127.0.0.1');
    t.is(again.status, 201, JSON.stringify(again.body));
    t.is(again.headers['ratelimit-remaining'], '0');
  },
);

test.serial('the address budget is shared: a second user on an exhausted address is refused too', async (t) => {
  const carol = await createUser(app);
  // 127.0.0.1 was exhausted by the previous test and has earned back at most a token or two since.
  let status = 0;
  for (let i = 0; i < 5 && status !== 429; i++) status = (await upload(carol, '127.0.0.1')).status;
  t.is(status, 429);
  t.is((await upload(carol, '127.0.0.4')).status, 201, 'the same user from a fresh address');
});
