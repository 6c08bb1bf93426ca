/**
 * docs/decisions.md §22's round trip: posts with tags of every category, sources, ratings, parents (one
 * parent numbered after its child) and a pool on one imgpost, mirrored by the real gallery-dl with
 * --write-metadata through imgpost's Danbooru API, imported by `imgpost import` (a child process, beside
 * the second board's running server) into a second, fresh imgpost: every post's tags, categories, rating,
 * source, createdAt, parent and the pool's order come out equal. Then the same import again adds nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { galleryDl } from '../helpers/gallery-dl.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { imgpost } from '../cli/run-cli.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';

let first: TestApp;
let second: TestApp;
let admin: TestUser;
let archive: string;

const CATEGORY = { painter_a: 'artist', saga_b: 'copyright', hero_c: 'character', tool_d: 'meta' } as const;

async function call(method: string, url: string, body?: unknown) {
  const res = await first.request(url, {
    method,
    headers: { ...admin.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<{ id: string }>;
}

test.before(async () => {
  [first, second] = await Promise.all([
    startTestApp({ LOG_LEVEL: 'warn', RATE_LIMIT_UPLOADS_PER_MINUTE: '0', RATE_LIMIT_WRITES_PER_MINUTE: '0' }),
    startTestApp({ LOG_LEVEL: 'warn' }),
  ]);
  admin = await createUser(first, 0xffff, 'board_admin');
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const res = await first.request('/api/post/', {
      method: 'POST',
      headers: admin.headers,
      body: uploadForm({
        image: await randomImage(48_000 + i, 40, 30, i % 2 ? 'jpeg' : 'png'),
        type: i % 2 ? 'image/jpeg' : 'image/png',
        metadata: {
          tags: [...Object.keys(CATEGORY).slice(0, 1 + (i % 4)), `plain_${i}`, 'round_trip'],
          rating: (['none', 'moderate', 'violent'] as const)[i % 3],
          source: i === 5 ? '' : `https://example.org/art/${i}`,
          ...(i === 1 || i === 2 ? { parentId: ids[0] } : {}),
        },
        force: '1',
      }),
    });
    if (res.status !== 201) throw new Error(`upload ${i}: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  }
  for (const [name, category] of Object.entries(CATEGORY)) await call('PUT', `/api/tag/${name}/category`, { category });
  // A parent numbered after its child: post 3's parent is post 6.
  await call('PUT', `/api/post/${ids[3]}`, { parentId: ids[5] });
  await call('POST', '/api/pool', { name: 'the saga', postIds: [ids[1], ids[2], ids[4]] });
  archive = tempDir('imgpost-round-trip');
  for (const [dir, url] of [
    ['posts', `${first.url}/posts?tags=round_trip`],
    ['pool', `${first.url}/pools/1`],
  ] as const)
    fs.renameSync(await galleryDl(first.url, url, `rt-${dir}`), path.join(archive, dir));
});
test.after.always(async () => {
  await Promise.all([first?.close(), second?.close()]);
  if (archive) fs.rmSync(archive, { recursive: true, force: true });
});

const all = (app: TestApp): PostRecord[] => [...app.services.postRepository.batches(100)].flat();

test.serial(
  'gallery-dl archive → a fresh imgpost: tags, categories, rating, source, createdAt, parent, pool order',
  async (t) => {
    const r = await imgpost(second, 'import', archive, '--json');
    t.is(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    t.is(summary.imported, 6);
    t.is(summary.alreadyImported, 3, 'the pool mirror names three posts the tag search brought');
    t.deepEqual(summary.refused, []);
    t.is(summary.mapping.sites.imgpost.family, 'danbooru', 'a board of its own, recognised by its shape');

    const before = all(first);
    const after = all(second);
    t.is(after.length, before.length);
    const bySeq = new Map(before.map((p) => [p.seq, p]));
    const mapped = new Map<number, number>();
    for (const p of after) {
      t.is(p.origins.length, 1);
      t.is(p.origins[0].site, 'imgpost');
      mapped.set(Number(p.origins[0].id), p.seq);
    }
    for (const p of after) {
      const o = bySeq.get(Number(p.origins[0].id))!;
      t.deepEqual(
        p.tags.map((x) => [x.name, x.category]),
        o.tags.map((x) => [x.name, x.category]),
      );
      t.is(p.rating, o.rating);
      t.is(p.source, o.source);
      t.is(p.createdAt, o.createdAt);
      t.is(p.parentSeq, o.parentSeq === null ? null : mapped.get(o.parentSeq)!);
      t.is(p.uploaderId, null, 'a legacy post without --map-users');
      t.is(p.origins[0].uploader, null);
    }
    const pool = (app: TestApp) => app.services.pools.list('', 0, 10).data[0];
    const order = (app: TestApp) => app.services.pools.get(pool(app).id).postIds;
    t.is(pool(second).name, pool(first).name);
    const idsOf = (app: TestApp) => new Map(all(app).map((p) => [p.id, p.seq]));
    const [firstSeqs, secondSeqs] = [idsOf(first), idsOf(second)];
    t.deepEqual(
      order(second).map((id) => secondSeqs.get(id)),
      order(first).map((id) => mapped.get(firstSeqs.get(id)!)),
    );

    // Searchable by origin, through both spellings.
    for (const condition of [
      { type: 'query', value: 'origin:imgpost' },
      { type: 'originSite', value: 'ImgPost' },
    ]) {
      const search = await second.request('/image/search', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ conditions: [condition], limit: 24 }),
      });
      t.is(((await search.json()) as { data: { total: number } }).data.total, 6);
    }
    const post = await (await second.request(`/api/post/${after[0].id}`)).json();
    t.deepEqual(post.origin, { site: 'imgpost', id: after[0].origins[0].id, url: '', uploader: null });
  },
);

test.serial('the same import again adds nothing', async (t) => {
  const versions = all(second).map((p) => [p.id, p.version]);
  const r = await imgpost(second, 'import', archive, '--json');
  t.is(r.code, 0, r.stderr);
  const summary = JSON.parse(r.stdout);
  t.is(summary.imported, 0);
  t.is(summary.alreadyImported, 9);
  t.is(summary.parentsSet, 0);
  t.deepEqual(
    all(second).map((p) => [p.id, p.version]),
    versions,
  );
  const history = await imgpost(second, 'import', '--history', '--json');
  t.is(JSON.parse(history.stdout).length, 2);
});
