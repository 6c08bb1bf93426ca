/**
 * `imgpost import --from URL` (docs/decisions.md §22) against a live imgpost speaking Danbooru's API:
 * posts with tags of every category, sources, ratings, parents (one numbered after its child), a pool in
 * an order of its own, comments, a wiki page and a note come into a fresh imgpost equal; a file whose md5
 * differs from the one the board states is reported and skipped, the rest imported; run again, nothing
 * is added.
 */
import fs from 'node:fs';
import http from 'node:http';
import test from 'ava';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { imgpost } from '../cli/run-cli.ts';
import { imageName } from '../../src/kernel/media-names.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';

let first: TestApp;
let second: TestApp;
let admin: TestUser;
const ids: string[] = [];

const CATEGORY = { painter_l: 'artist', saga_l: 'copyright', hero_l: 'character', tool_l: 'meta' } as const;

async function call(method: string, url: string, body?: unknown) {
  const res = await first.request(url, {
    method,
    headers: { ...admin.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? undefined : res.json();
}

test.before(async () => {
  [first, second] = await Promise.all([
    startTestApp({ LOG_LEVEL: 'warn', RATE_LIMIT_UPLOADS_PER_MINUTE: '0', RATE_LIMIT_WRITES_PER_MINUTE: '0' }),
    startTestApp({ LOG_LEVEL: 'warn' }),
  ]);
  admin = await createUser(first, 0xffff, 'live_admin');
  for (let i = 0; i < 7; i++) {
    const res = await first.request('/api/post/', {
      method: 'POST',
      headers: admin.headers,
      body: uploadForm({
        image: await randomImage(52_000 + i, 40, 30, i % 2 ? 'jpeg' : 'png'),
        type: i % 2 ? 'image/jpeg' : 'image/png',
        metadata: {
          tags: [...Object.keys(CATEGORY).slice(0, 1 + (i % 4)), `live_${i}`],
          rating: (['none', 'moderate', 'violent'] as const)[i % 3],
          source: `https://example.org/live/${i}`,
          ...(i === 1 ? { parentId: ids[0] } : {}),
        },
        force: '1',
      }),
    });
    if (res.status !== 201) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (const [name, category] of Object.entries(CATEGORY)) await call('PUT', `/api/tag/${name}/category`, { category });
  await call('PUT', `/api/post/${ids[2]}`, { parentId: ids[5] });
  // A pool in an order of its own (not the posts' numbers).
  await call('POST', '/api/pool', { name: 'live saga', postIds: [ids[4], ids[0], ids[2]] });
  await call('POST', `/api/post/${ids[0]}/comment`, { body: 'first comment' });
  await call('POST', `/api/post/${ids[0]}/comment`, { body: 'second <i>comment</i>' });
  await call('PUT', '/api/wiki/painter_l', { body: 'A painter. See [[saga_l]].', otherNames: ['Painter L'] });
  await call('POST', `/api/post/${ids[3]}/note`, { x: 2, y: 3, width: 10, height: 8, body: 'a note' });
  // Post 7's stored file is not the one the board's md5 names any more.
  const last = first.services.postRepository.getById(ids[6])!;
  fs.writeFileSync(
    first.services.images.pathOf(imageName(last)),
    await sharp(await randomImage(52_999, 40, 30)).toBuffer(),
  );
});
test.after.always(async () => {
  await Promise.all([first?.close(), second?.close()]);
});

const all = (app: TestApp): PostRecord[] => [...app.services.postRepository.batches(100)].flat();

test.serial(
  '--from a live board: equal posts, pool order, comments, wiki page, note; an md5 that differs is refused',
  async (t) => {
    const r = await imgpost(second, 'import', '--from', first.url, '--rate', '200', '--json');
    t.is(r.code, 1, r.stderr);
    const s = JSON.parse(r.stdout);
    t.is(s.imported, 6);
    t.is(s.refused.length, 1);
    t.is(s.refused[0].file, `${first.url}/posts/7`);
    t.regex(s.refused[0].reason, /^md5 differs: the board says [0-9a-f]{32}, the file is [0-9a-f]{32}$/);

    const site = new URL(first.url).host;
    const source = new Map(all(first).map((p) => [p.seq, p]));
    const after = all(second);
    t.is(after.length, 6);
    const mapped = new Map(after.map((p) => [Number(p.origins[0].id), p]));
    for (const p of after) {
      const o = source.get(Number(p.origins[0].id))!;
      t.is(p.origins[0].site, site);
      t.is(p.origins[0].url, `${first.url}/posts/${o.seq}`);
      t.deepEqual(
        p.tags.map((x) => [x.name, x.category]),
        o.tags.map((x) => [x.name, x.category]),
      );
      t.is(p.rating, o.rating);
      t.is(p.source, o.source);
      t.is(p.createdAt, o.createdAt);
      t.is(p.parentId, o.parentSeq === null ? null : mapped.get(o.parentSeq)!.id);
    }
    const pool = second.services.pools.list('live', 0, 1).data[0];
    t.deepEqual(
      second.services.pools.get(pool.id).postIds,
      [5, 1, 3].map((n) => mapped.get(n)!.id),
    );

    const comments = (await (await second.request(`/api/post/${mapped.get(1)!.id}/comment`)).json()) as {
      data: { author: unknown; originAuthor: string; body: string; createdAt: string }[];
    };
    const theirs = (await (await first.request(`/api/post/${ids[0]}/comment`)).json()) as {
      data: { createdAt: string }[];
    };
    t.deepEqual(
      comments.data.map((c) => [c.author, c.originAuthor, c.body, c.createdAt]),
      [
        [null, 'live_admin', 'first comment', theirs.data[0].createdAt],
        [null, 'live_admin', 'second <i>comment</i>', theirs.data[1].createdAt],
      ],
    );
    const wiki = (await (await second.request('/api/wiki/painter_l')).json()) as { body: string; otherNames: string[] };
    t.like(wiki, { body: 'A painter. See [[saga_l]].', otherNames: ['Painter L'] });
    const notes = (await (await second.request(`/api/post/${mapped.get(4)!.id}/note`)).json()) as object[];
    t.like(notes[0], { x: 2, y: 3, width: 10, height: 8, body: 'a note' });
    const verify = await imgpost(second, 'verify');
    t.is(verify.code, 0, verify.stdout + verify.stderr);
  },
);

test.serial('--from again adds nothing, and downloads nothing already here', async (t) => {
  const state = () => all(second).map((p) => [p.id, p.version, p.comments]);
  const before = state();
  const r = await imgpost(second, 'import', '--from', first.url, '--rate', '200', '--json');
  const s = JSON.parse(r.stdout);
  t.is(s.imported, 0);
  t.is(s.alreadyImported, 6);
  t.is(s.comments, 0);
  t.deepEqual(state(), before);
});

test.serial(
  '--from is polite: a 429 waits as Retry-After says; --login and --api-key go as Basic authentication',
  async (t) => {
    const seen: { path: string; at: number; auth: string | undefined }[] = [];
    const proxy = http.createServer(async (req, res) => {
      seen.push({ path: req.url!, at: Date.now(), auth: req.headers.authorization });
      if (seen.length === 1) {
        res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' });
        res.end('{"success":false,"message":"slow down"}');
        return;
      }
      const upstream = await fetch(first.url + req.url!);
      res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    t.teardown(() => proxy.close());
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    const r = await imgpost(
      second,
      'import',
      '--from',
      url,
      '--dry-run',
      '--login',
      'me',
      '--api-key',
      'k3y',
      '--json',
    );
    t.is(r.code, 0, r.stderr);
    t.is(JSON.parse(r.stdout).mapping.sites[new URL(url).host].posts, 7);
    t.true(seen.length >= 2);
    t.is(seen[1].path, seen[0].path, 'the same request again');
    t.true(seen[1].at - seen[0].at >= 1000, `waited ${seen[1].at - seen[0].at} ms`);
    t.true(seen.every((s) => s.auth === `Basic ${Buffer.from('me:k3y').toString('base64')}`));
  },
);
