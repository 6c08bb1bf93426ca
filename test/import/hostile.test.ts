/**
 * Hostile archives and idempotence (docs/decisions.md §22): unreadable JSON, metadata naming a missing
 * file, an absurd date, a 100,000-tag post, a tag name with control characters, links leading out of DIR:
 * each reported with its reason and skipped, the rest imported. The same import again adds nothing; a
 * near-duplicate of a post here enriches it (its tags, the origin) in one version instead of being stored.
 * A post over the board's tag limit, made or enriched, keeps what it can hold and the report lists the rest.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { imgpost } from '../cli/run-cli.ts';

let app: TestApp;
let archive: string;
let outside: string;
let existingId: string;

const meta = (id: number, extra: object = {}) => ({
  id,
  created_at: '2022-02-02T02:02:02.000+00:00',
  md5: '0'.repeat(32),
  rating: 'g',
  source: '',
  tag_string: `plain hostile_${id}`,
  tag_string_general: `plain hostile_${id}`,
  parent_id: null,
  category: 'hostilebooru',
  ...extra,
});

async function write(name: string, seed: number | Buffer, m: object | string) {
  fs.writeFileSync(path.join(archive, name), typeof seed === 'number' ? await randomImage(seed, 20, 15) : seed);
  fs.writeFileSync(path.join(archive, `${name}.json`), typeof m === 'string' ? m : JSON.stringify(m));
}

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  archive = tempDir('imgpost-hostile');
  outside = tempDir('imgpost-outside');
  const user = await createUser(app);
  const mine = await randomImage(71_500, 20, 15);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: mine, metadata: { tags: ['mine'], rating: 'none' } }),
  });
  existingId = ((await res.json()) as { id: string }).id;

  await write('good1.png', 71_001, meta(1));
  await write('good2.png', 71_002, meta(2, { parent_id: 1 }));
  await write('good3.png', 71_003, meta(3));
  // The same picture as the post already here: it enriches that post.
  await write('same.png', mine, meta(4, { tag_string: 'theirs', tag_string_artist: 'theirs' }));
  await write('broken.png', 71_005, '{"id": 5, "tag_string": ');
  fs.writeFileSync(path.join(archive, 'gone.png.json'), JSON.stringify(meta(6)));
  await write('future.png', 71_007, meta(7, { created_at: '9999-12-31T00:00:00Z' }));
  await write('ancient.png', 71_008, meta(8, { created_at: '0001-01-01T00:00:00Z' }));
  const many = Array.from({ length: 100_000 }, (_, i) => `t${i}`).join(' ');
  await write('many.png', 71_009, meta(9, { tag_string: many, tag_string_general: many }));
  await write(
    'control.png',
    71_010,
    meta(10, { tag_string: 'fine bad\u0007tag', tag_string_general: 'fine bad\u0007tag' }),
  );
  // Links out of DIR: to a file, and to a directory holding a post with its metadata.
  fs.writeFileSync(path.join(outside, 'secret.png'), await randomImage(71_011, 20, 15));
  fs.writeFileSync(path.join(outside, 'secret.png.json'), JSON.stringify(meta(11)));
  fs.symlinkSync(path.join(outside, 'secret.png'), path.join(archive, 'escape.png'));
  fs.writeFileSync(path.join(archive, 'escape.png.json'), JSON.stringify(meta(12)));
  fs.symlinkSync(outside, path.join(archive, 'elsewhere'));
});
test.after.always(async () => {
  await app?.close();
  for (const dir of [archive, outside]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const reasons = (refused: { file: string; reason: string }[]) =>
  Object.fromEntries(refused.map((r) => [path.relative(archive, r.file), r.reason]));

test.serial('each hostile file is reported and skipped, the rest imported', async (t) => {
  const versionBefore = app.services.postRepository.getById(existingId)!.version;
  const r = await imgpost(app, 'import', archive, '--json');
  t.is(r.code, 1, 'some files were refused');
  const s = JSON.parse(r.stdout);
  t.is(s.imported, 3);
  t.is(s.merged, 1);
  const why = reasons(s.refused);
  t.deepEqual(Object.keys(why).sort(), [
    'ancient.png.json',
    'broken.png.json',
    'control.png.json',
    'elsewhere',
    'escape.png',
    'future.png.json',
    'gone.png.json',
    'many.png.json',
  ]);
  t.regex(why['broken.png.json'], /^unreadable JSON/);
  t.is(why['gone.png.json'], 'the metadata names a missing file: gone.png');
  t.regex(why['future.png.json'], /^absurd creation date: 9999/);
  t.regex(why['ancient.png.json'], /^absurd creation date: 0001/);
  t.is(why['many.png.json'], '100000 tags; at most 1000');
  t.regex(why['control.png.json'], /control characters/);
  t.is(why['escape.png'], 'path escapes DIR');
  t.is(why.elsewhere, 'path escapes DIR');
  for (const bad of Object.keys(why)) t.true(r.stderr.includes(`refused ${path.join(archive, bad)}: `), bad);

  // The near-duplicate: the post here gained the tag and the origin, in one version, and was not stored twice.
  const enriched = app.services.postRepository.getById(existingId)!;
  t.deepEqual(
    enriched.tags.map((x) => [x.name, x.category]),
    [
      ['theirs', 'artist'],
      ['hostile_4', 'general'],
      ['mine', 'general'],
      ['plain', 'general'],
    ],
  );
  t.is(enriched.version, versionBefore + 1);
  t.deepEqual(
    enriched.origins.map((o) => o.id),
    ['4'],
  );
  t.is(app.services.postRepository.count(), 4);
  const [p1, p2] = ['1', '2'].map(
    (id) => [...app.services.postRepository.batches(100)].flat().find((p) => p.origins[0]?.id === id)!,
  );
  t.is(p2.parentId, p1.id);
});

test.serial('the same import again adds nothing', async (t) => {
  const state = () => [...app.services.postRepository.batches(100)].flat().map((p) => [p.id, p.version, p.tags.length]);
  const before = state();
  const r = await imgpost(app, 'import', archive, '--json');
  const s = JSON.parse(r.stdout);
  t.is(s.imported, 0);
  t.is(s.merged, 0);
  t.is(s.alreadyImported, 4);
  t.is(s.refused.length, 8);
  t.deepEqual(state(), before);
});

test.serial(
  "a merge hands the merged post's origin to the kept post; an import again brings neither back",
  async (t) => {
    const moderator = await createUser(app, 0x2 | 0x2000);
    const byOrigin = (id: string) =>
      [...app.services.postRepository.batches(100)].flat().find((p) => p.origins.some((o) => o.id === id))!;
    const [merged, kept] = [byOrigin('1'), byOrigin('3')];
    const res = await app.request(`/api/post/${merged.id}/merge`, {
      method: 'POST',
      headers: { ...moderator.headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ into: kept.id }),
    });
    t.is(res.status, 200, await res.text());
    t.deepEqual(
      app.services.postRepository
        .getById(kept.id)!
        .origins.map((o) => o.id)
        .sort(),
      ['1', '3'],
    );
    const search = await app.request('/image/search', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ conditions: [{ type: 'originSite', value: 'hostilebooru' }] }),
    });
    t.is(((await search.json()) as { data: { total: number } }).data.total, 3);
    const again = JSON.parse((await imgpost(app, 'import', archive, '--json')).stdout);
    t.is(again.imported, 0);
    t.is(again.alreadyImported, 4);
  },
);

test.serial('an imported or enriched post holds at most 64 tags; the report lists the ones dropped', async (t) => {
  const dir = tempDir('imgpost-tag-limit');
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const user = await createUser(app);
  const picture = await randomImage(71_600, 20, 15);
  const has = Array.from({ length: 60 }, (_, i) => `had_${i}`);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: picture, metadata: { tags: has, rating: 'none' } }),
  });
  const hereId = ((await res.json()) as { id: string }).id;
  const versionBefore = app.services.postRepository.getById(hereId)!.version;
  const danbooru = (id: number, tags: Record<string, string[]>) => ({
    ...meta(id),
    category: 'limitbooru',
    tag_string: Object.values(tags).flat().join(' '),
    tag_string_general: '',
    ...Object.fromEntries(Object.entries(tags).map(([c, names]) => [`tag_string_${c}`, names.join(' ')])),
  });
  const general = Array.from({ length: 60 }, (_, i) => `g_${String(i).padStart(2, '0')}`);
  const metaTags = ['m_a', 'm_b', 'm_c', 'm_d', 'm_e'];
  // 70 tags (Danbooru's reader gives the general ones first): artists, copyrights and characters are kept first.
  const over = danbooru(1, {
    meta: metaTags,
    general,
    character: ['ch_a', 'ch_b'],
    copyright: ['co_a'],
    artist: ['ar_a', 'ar_b'],
  });
  fs.writeFileSync(path.join(dir, 'over.png'), await randomImage(71_601, 20, 15));
  fs.writeFileSync(path.join(dir, 'over.png.json'), JSON.stringify(over));
  // The post here (60 tags) as a near-duplicate: room for four of its origin's eight others.
  const same = danbooru(2, {
    general: ['had_0', 'new_a', 'new_b', 'new_c', 'new_d', 'new_e'],
    meta: ['new_meta'],
    artist: ['their_artist'],
  });
  fs.writeFileSync(path.join(dir, 'same.png'), picture);
  fs.writeFileSync(path.join(dir, 'same.png.json'), JSON.stringify(same));

  // The dry run names the tags a new post would drop, and changes nothing.
  const dry = await imgpost(app, 'import', dir, '--dry-run', '--json');
  t.is(dry.code, 0, dry.stderr);
  t.deepEqual(
    (JSON.parse(dry.stdout).tagsDropped as { file: string; tags: string[] }[]).map((d) => [
      path.relative(dir, d.file),
      d.tags,
    ]),
    [['over.png', ['g_59', ...metaTags]]],
  );
  t.is(app.services.postRepository.getById(hereId)!.version, versionBefore);

  const r = await imgpost(app, 'import', dir, '--json');
  t.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.is(s.imported, 1);
  t.is(s.merged, 1);
  t.deepEqual(s.refused, []);
  const dropped = Object.fromEntries(
    (s.tagsDropped as { file: string; tags: string[] }[]).map((d) => [path.relative(dir, d.file), d.tags]),
  );
  t.deepEqual(dropped, {
    'over.png': ['g_59', ...metaTags],
    'same.png': ['new_d', 'new_e', 'new_meta'],
  });
  t.true(r.stderr.includes(`tags dropped from ${path.join(dir, 'over.png')} (a post holds at most 64): g_59 m_a`));

  const made = [...app.services.postRepository.batches(100)]
    .flat()
    .find((p) => p.origins.some((o) => o.site === 'limitbooru' && o.id === '1'))!;
  t.is(made.tags.length, 64);
  t.deepEqual(
    made.tags.filter((x) => x.category !== 'general').map((x) => [x.name, x.category]),
    [
      ['ar_a', 'artist'],
      ['ar_b', 'artist'],
      ['co_a', 'copyright'],
      ['ch_a', 'character'],
      ['ch_b', 'character'],
    ],
  );
  const enriched = app.services.postRepository.getById(hereId)!;
  t.is(enriched.tags.length, 64);
  t.is(enriched.version, versionBefore + 1);
  t.deepEqual(
    enriched.tags.filter((x) => !x.name.startsWith('had_')).map((x) => x.name),
    ['their_artist', 'new_a', 'new_b', 'new_c'],
  );
  t.deepEqual(
    enriched.origins.map((o) => o.id),
    ['2'],
  );
});
