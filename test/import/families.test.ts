/**
 * Each site family's metadata (docs/decisions.md §22), written from what its gallery-dl extractor writes
 * and the site's API documents, with images made by sharp here: a dry run shows the mapping it would apply
 * and writes nothing; the import then maps tags and their categories (new tags only), ratings by their
 * meaning per site, sources, dates, uploaders (an account with --map-users), parents (one after its
 * child), pools in their order there, and comments with their authors' names.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { startTestApp, tempDir, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';
import { imgpost } from '../cli/run-cli.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';

let app: TestApp;
let archive: string;
let seed = 61_000;

/** Writes an image and gallery-dl's metadata beside it; the metadata gets the image's md5. */
async function post(dir: string, name: string, meta: Record<string, unknown>, md5Field?: (md5: string) => object) {
  fs.mkdirSync(path.join(archive, dir), { recursive: true });
  const bytes = await randomImage(seed++, 24, 18);
  const md5 = crypto.createHash('md5').update(bytes).digest('hex');
  fs.writeFileSync(path.join(archive, dir, `${name}.png`), bytes);
  fs.writeFileSync(
    path.join(archive, dir, `${name}.png.json`),
    JSON.stringify({ ...meta, ...(md5Field?.(md5) ?? { md5 }) }),
  );
}

test.before(async () => {
  app = await startTestApp({ LOG_LEVEL: 'warn' });
  archive = tempDir('imgpost-families');
  // A tag this board has already, with its own category: an import leaves it so.
  const admin = await createUser(app, 0xffff, 'families_admin');
  await createUser(app, 6, 'dan_up');
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: admin.headers,
    body: uploadForm({ image: await randomImage(60_999, 24, 18), metadata: { tags: ['cute'] } }),
  });
  if (res.status !== 201) throw new Error(await res.text());
  await app.request('/api/tag/cute/category', {
    method: 'PUT',
    headers: { ...admin.headers, 'Content-Type': 'application/json' },
    body: JSON.stringify({ category: 'meta' }),
  });

  // Danbooru as newer gallery-dl writes it: tags_<category> lists, `date`, the pool with `num`.
  const dan = (id: number, num: number, rating: string, extra: object = {}) => ({
    id,
    created_at: `2024-01-0${num}T03:04:05.678-05:00`,
    uploader_id: 1,
    uploader: { id: 1, name: 'dan_up' },
    score: 4,
    fav_count: 2,
    source: `https://danbooru.example/${id}`,
    rating,
    tag_string: 'dan_artist dan_series dan_hero scenery highres',
    tag_string_artist: 'dan_artist',
    tag_string_copyright: 'dan_series',
    tag_string_character: 'dan_hero',
    tag_string_general: 'scenery',
    tag_string_meta: 'highres',
    tags: ['dan_artist', 'dan_hero', 'dan_series', 'highres', 'scenery'],
    tags_artist: ['dan_artist'],
    tags_copyright: ['dan_series'],
    tags_character: ['dan_hero'],
    tags_general: ['scenery'],
    tags_meta: ['highres'],
    parent_id: null,
    has_children: false,
    pool: { id: 9, name: 'dan pool', description: '', category: 'series' },
    num,
    category: 'danbooru',
    subcategory: 'pool',
    filename: 'x',
    extension: 'png',
    date: '2024-01-02 08:04:05',
    ...extra,
  });
  await post('danbooru', 'd1', dan(7000001, 2, 's'));
  await post('danbooru', 'd2', dan(7000002, 1, 'g', { mystery_field: 1 }));

  // e621: `tags` one list and tags_<category> (species, contributor...), relationships, sources, pools.
  const e6pool = { id: 77, name: 'fox saga', post_ids: [4100002, 4100001] };
  const e6 = (id: number, rating: string, parent: number | null) => ({
    id,
    created_at: '2023-03-04T05:06:07.890-05:00',
    updated_at: '2023-03-05T05:06:07.890-05:00',
    preview: { width: 24, height: 18, url: null },
    sample: { has: false },
    score: { up: 10, down: -1, total: 9 },
    tags: ['canine', 'fox_mccloud', 'hi_res', 'nintendo', 'some_artist', 'conditional_dnp'],
    tags_general: ['solo'],
    tags_species: ['canine'],
    tags_character: ['fox_mccloud'],
    tags_copyright: ['nintendo'],
    tags_artist: ['some_artist', 'conditional_dnp'],
    tags_contributor: [],
    tags_invalid: [],
    tags_meta: ['hi_res'],
    tags_lore: [],
    locked_tags: [],
    change_seq: 1,
    flags: { pending: false, flagged: false },
    rating,
    fav_count: 12,
    sources: ['https://twitter.com/fox/status/1', 'https://other.example/1'],
    pools: [e6pool],
    relationships: { parent_id: parent, has_children: parent === null, has_active_children: false, children: [] },
    approver_id: null,
    uploader_id: 5,
    description: '',
    comment_count: 0,
    is_favorited: false,
    has_notes: false,
    duration: null,
    category: 'e621',
    subcategory: 'tag',
    extension: 'png',
    search_tags: 'fox',
  });
  const e6file = (md5: string) => ({ file: { width: 24, height: 18, ext: 'png', size: 100, md5, url: null } });
  await post('e621', 'e1', e6(4100001, 's', 4100002), e6file);
  await post('e621', 'e2', e6(4100002, 'e', null), e6file);

  // Gelbooru 0.2.5: rating words, Gelbooru's date, owner.
  await post('gelbooru', 'g1', {
    id: 9000001,
    created_at: 'Sat Jan 01 12:00:00 -0500 2022',
    score: 5,
    width: 24,
    height: 18,
    directory: 'ab/cd',
    image: 'x.png',
    rating: 'sensitive',
    source: 'https://pixiv.example/1',
    change: 1,
    owner: 'gel_uploader',
    creator_id: 3,
    parent_id: 0,
    tags: 'artist_x 1girl solo',
    tags_artist: 'artist_x',
    tags_general: '1girl solo',
    title: '',
    has_notes: 'false',
    has_comments: 'false',
    file_url: 'https://img.gelbooru.example/x.png',
    status: 'active',
    post_locked: 0,
    has_children: 'false',
    category: 'gelbooru',
    subcategory: 'tag',
    extension: 'png',
  });
  // A Gelbooru 0.2 board: the XML's attributes, all strings; `s` is safe; a pool by id and name.
  await post('safebooru', 's1', {
    height: '18',
    score: '2',
    file_url: 'https://safebooru.example/images/1/x.png',
    parent_id: '',
    rating: 's',
    tags: 'cat tree',
    id: '3100001',
    width: '24',
    change: '1',
    creator_id: '4',
    has_children: 'false',
    created_at: 'Mon Feb 03 04:05:06 +0000 2020',
    status: 'active',
    source: '',
    has_notes: 'false',
    has_comments: 'false',
    pool: 55,
    pool_name: 'garden',
    category: 'safebooru',
    subcategory: 'pool',
    extension: 'png',
  });

  // Moebooru (yande.re): a Unix time, author, tags_<type> strings with a circle; `s` is safe.
  const moe = (id: number, rating: string, parent: number | null) => ({
    id,
    tags: 'seifuku original artist_m studio_k',
    created_at: 1600000000 + id - 1000001,
    updated_at: 1600000100,
    creator_id: 7,
    approver_id: null,
    author: 'moe_user',
    change: 1,
    source: 'https://www.pixiv.net/artworks/5',
    score: 30,
    file_size: 100,
    file_ext: 'png',
    file_url: 'https://files.yande.re/image/x.png',
    is_shown_in_index: true,
    rating,
    is_rating_locked: false,
    has_children: parent === null,
    parent_id: parent,
    status: 'active',
    is_pending: false,
    width: 24,
    height: 18,
    is_held: false,
    frames_pending_string: '',
    frames_pending: [],
    frames_string: '',
    frames: [],
    is_note_locked: false,
    last_noted_at: 0,
    last_commented_at: 0,
    tags_artist: 'artist_m',
    tags_circle: 'studio_k',
    tags_copyright: 'original',
    tags_general: 'seifuku',
    category: 'yandere',
    subcategory: 'post',
    extension: 'png',
  });
  await post('yandere', 'y1', moe(1000001, 's', null));
  await post('yandere', 'y2', moe(1000002, 'q', 1000001));

  // szurubooru on a board of its own (its host as the category): safety, user, comments, pools.
  await post(
    'szuru',
    'z1',
    {
      id: 12,
      version: 3,
      creationTime: '2021-05-06T07:08:09.123456Z',
      lastEditTime: '2021-05-06T08:00:00Z',
      safety: 'sketchy',
      source: 'https://example.com/a\nhttps://example.com/b',
      type: 'image',
      mimeType: 'image/png',
      checksum: 'f'.repeat(40),
      fileSize: 100,
      canvasWidth: 24,
      canvasHeight: 18,
      contentUrl: 'data/posts/12_x.png',
      thumbnailUrl: 'data/generated-thumbnails/12_x.jpg',
      flags: [],
      tags: ['cherry_tree', 'sakura', 'painter_z'],
      tags_default: ['cherry_tree'],
      tags_character: ['sakura'],
      tags_artist: ['painter_z'],
      relations: [],
      user: { name: 'szuru_up', avatarUrl: 'https://gravatar.example/x' },
      score: 3,
      ownScore: 0,
      ownFavorite: false,
      tagCount: 3,
      favoriteCount: 1,
      commentCount: 2,
      noteCount: 0,
      featureCount: 0,
      relationCount: 0,
      lastFeatureTime: null,
      favoritedBy: [],
      hasCustomThumbnail: false,
      notes: [],
      comments: [
        {
          id: 5,
          postId: 12,
          version: 1,
          text: 'lovely <b>tree</b>',
          creationTime: '2021-05-07T00:00:00Z',
          lastEditTime: null,
          user: { name: 'commenter_1', avatarUrl: '' },
          score: 0,
          ownScore: 0,
        },
        { id: 6, postId: 12, version: 1, text: 'second', creationTime: '2021-05-08T00:00:00Z', user: null, score: 0 },
      ],
      pools: [{ id: 2, names: ['spring'], category: 'default', description: '', postCount: 1 }],
      category: 'szuru.example:8080',
      subcategory: 'tag',
      extension: 'png',
    },
    (md5) => ({ checksumMD5: md5 }),
  );

  // Philomena (Derpibooru): namespaced tags, the rating among them; no md5.
  const derpi = (id: number, tags: string[]) => ({
    id,
    created_at: '2020-07-08T09:10:11Z',
    updated_at: '2020-07-09T09:10:11Z',
    first_seen_at: '2020-07-08T09:10:11Z',
    uploader: 'pony_fan',
    uploader_id: 9,
    tags,
    tag_ids: tags.map((_, i) => i + 1),
    tag_count: tags.length,
    source_url: 'https://deviantart.example/x',
    source_urls: ['https://deviantart.example/x'],
    format: 'png',
    mime_type: 'image/png',
    name: 'x.png',
    sha512_hash: 'a'.repeat(128),
    orig_sha512_hash: 'a'.repeat(128),
    width: 24,
    height: 18,
    aspect_ratio: 1.33,
    score: 40,
    upvotes: 42,
    downvotes: 2,
    faves: 20,
    wilson_score: 0.9,
    comment_count: 0,
    description: '',
    representations: { full: 'https://derpicdn.example/x.png' },
    view_url: 'https://derpicdn.example/x.png',
    thumbnails_generated: true,
    processed: true,
    hidden_from_users: false,
    deletion_reason: null,
    duplicate_of: null,
    spoilered: false,
    animated: false,
    duration: 0.04,
    category: 'derpibooru',
    subcategory: 'search',
    extension: 'png',
  });
  await post('derpibooru', 'p1', derpi(2000001, ['artist:brushy', 'oc:sunny day', 'pony', 'safe', 'cute']), () => ({}));
  await post('derpibooru', 'p2', derpi(2000002, ['explicit', 'semi-grimdark', 'pony']), () => ({}));

  // Shimmie2: what its pages give: tags with namespaces, md5, file_url, sizes; no date or rating.
  await post('vidya', 'v1', {
    id: 501,
    file_url: 'https://vidya.pics/_images/x/501%20-%20mario.png',
    width: 24,
    height: 18,
    size: 300,
    filename: '501 - mario',
    tags: 'artist:gamer_art mario series:nintendo_games',
    search_tags: 'mario',
    category: 'vidyapics',
    subcategory: 'tag',
    extension: 'png',
  });
});
test.after.always(async () => {
  await app?.close();
  if (archive) fs.rmSync(archive, { recursive: true, force: true });
});

const imported = (): Map<string, PostRecord> =>
  new Map(
    [...app.services.postRepository.batches(100)]
      .flat()
      .flatMap((p) => p.origins.map((o) => [`${o.site}/${o.id}`, p] as const)),
  );
const tags = (p: PostRecord) => Object.fromEntries(p.tags.map((t) => [t.name, t.category]));

test.serial('--dry-run shows the mapping it would apply and writes nothing', async (t) => {
  const r = await imgpost(app, 'import', archive, '--dry-run', '--json');
  t.is(r.code, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  t.is(s.dryRun, true);
  t.is(app.services.postRepository.count(), 1);
  t.deepEqual(
    Object.fromEntries(Object.entries(s.mapping.sites).map(([k, v]) => [k, (v as { family: string }).family])),
    {
      danbooru: 'danbooru',
      e621: 'e621',
      gelbooru: 'gelbooru',
      safebooru: 'gelbooru_v02',
      yandere: 'moebooru',
      'szuru.example:8080': 'szurubooru',
      derpibooru: 'philomena',
      vidyapics: 'shimmie2',
    },
  );
  t.like(s.mapping.ratings, {
    's -> moderate': 1,
    'g -> none': 1,
    'sensitive -> moderate': 1,
    'sketchy -> moderate': 1,
  });
  t.is(s.mapping.ratings['s -> none'], 3, "e621's, yande.re's and safebooru's s is safe");
  t.deepEqual(s.mapping.unknownFields, { mystery_field: 1 });
  t.is(s.mapping.tags.artist, 2 + 4 + 1 + 4 + 1 + 1 + 1);
  t.regex(r.stderr, /dry run: nothing was written/);
  t.regex(r.stderr, /fields not read: mystery_field \(1\)/);
});

test.serial(
  'every family: tags and categories, ratings, sources, dates, uploaders, parents, pools, comments',
  async (t) => {
    const r = await imgpost(app, 'import', archive, '--map-users', '--json');
    t.is(r.code, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    t.is(s.imported, 12);
    t.deepEqual(s.refused, []);
    t.regex(r.stderr, /^import \[#{30}\] 100% 12\/12 \d+ posts\/s$/m);
    const by = imported();
    const at = (key: string) => {
      const p = by.get(key);
      if (!p) throw new Error(`${key} not imported`);
      return p;
    };

    // Danbooru: s is sensitive; categories; the uploader an account here; the pool in its `num` order.
    const d1 = at('danbooru/7000001');
    t.deepEqual(tags(d1), {
      dan_artist: 'artist',
      dan_series: 'copyright',
      dan_hero: 'character',
      scenery: 'general',
      highres: 'meta',
    });
    t.is(d1.rating, 'moderate');
    t.is(at('danbooru/7000002').rating, 'none');
    t.is(d1.createdAt, '2024-01-02T08:04:05.678Z');
    t.is(d1.source, 'https://danbooru.example/7000001');
    t.is(d1.uploaderName, 'dan_up', '--map-users: the account of that name owns it');
    t.deepEqual(d1.origins[0], {
      site: 'danbooru',
      id: '7000001',
      url: 'https://danbooru.donmai.us/posts/7000001',
      uploader: 'dan_up',
    });
    const poolOrder = (name: string) => {
      const pool = app.services.pools.list(name, 0, 1).data[0];
      return app.services.pools.get(pool.id).postIds;
    };
    t.deepEqual(poolOrder('dan pool'), [at('danbooru/7000002').id, d1.id]);

    // e621: s is safe, e violent; species general, contributor-less artists; the first source; the parent
    // numbered after its child; the pool in its post_ids' order.
    const [e1, e2] = [at('e621/4100001'), at('e621/4100002')];
    t.is(e1.rating, 'none');
    t.is(e2.rating, 'violent');
    t.deepEqual(tags(e1), {
      some_artist: 'artist',
      conditional_dnp: 'artist',
      nintendo: 'copyright',
      fox_mccloud: 'character',
      solo: 'general',
      canine: 'general',
      hi_res: 'meta',
    });
    t.is(e1.source, 'https://twitter.com/fox/status/1');
    t.is(e1.parentId, e2.id, 'a parent imported after its child');
    t.is(e1.createdAt, '2023-03-04T10:06:07.890Z');
    t.deepEqual(poolOrder('fox saga'), [e2.id, e1.id]);

    // Gelbooru: sensitive is moderate; Gelbooru's date; owner.
    const g1 = at('gelbooru/9000001');
    t.is(g1.rating, 'moderate');
    t.is(g1.createdAt, '2022-01-01T17:00:00.000Z');
    t.deepEqual(tags(g1), { artist_x: 'artist', '1girl': 'general', solo: 'general' });
    t.is(g1.origins[0].uploader, 'gel_uploader');
    t.is(g1.uploaderId, null, 'no account of that name: a legacy post');
    const s1 = at('safebooru/3100001');
    t.is(s1.rating, 'none', "a Gelbooru 0.2 board's s is safe");
    t.is(s1.createdAt, '2020-02-03T04:05:06.000Z');
    t.deepEqual(poolOrder('garden'), [s1.id]);

    // Moebooru: s safe, q moderate; a circle is an artist; the Unix time; the parent.
    const [y1, y2] = [at('yandere/1000001'), at('yandere/1000002')];
    t.is(y1.rating, 'none');
    t.is(y2.rating, 'moderate');
    t.is(y2.parentId, y1.id);
    t.is(y1.createdAt, new Date(1600000000 * 1000).toISOString());
    t.deepEqual(tags(y1), { artist_m: 'artist', studio_k: 'artist', original: 'copyright', seifuku: 'general' });
    t.is(y1.origins[0].uploader, 'moe_user');

    // szurubooru, recognised by its shape: sketchy is moderate; comments with their authors' names and dates.
    const z1 = at('szuru.example:8080/12');
    t.is(z1.rating, 'moderate');
    t.deepEqual(tags(z1), { painter_z: 'artist', sakura: 'character', cherry_tree: 'general' });
    t.is(z1.source, 'https://example.com/a');
    t.is(z1.origins[0].url, 'https://szuru.example:8080/post/12');
    t.deepEqual(poolOrder('spring'), [z1.id]);
    const comments = (await (await app.request(`/api/post/${z1.id}/comment`)).json()) as {
      data: { author: unknown; originAuthor?: string; body: string; createdAt: string }[];
    };
    t.deepEqual(
      comments.data.map((c) => [c.author, c.originAuthor, c.body, c.createdAt]),
      [
        [null, 'commenter_1', 'lovely <b>tree</b>', '2021-05-07T00:00:00.000Z'],
        [null, undefined, 'second', '2021-05-08T00:00:00.000Z'],
      ],
    );

    // Philomena: namespaces make categories; the rating tag is the rating (the strongest); an existing tag
    // keeps this board's category.
    const [p1, p2] = [at('derpibooru/2000001'), at('derpibooru/2000002')];
    t.is(p1.rating, 'none');
    t.is(p2.rating, 'violent');
    t.deepEqual(tags(p1), { brushy: 'artist', sunny_day: 'character', pony: 'general', cute: 'meta' });
    t.is(p1.origins[0].uploader, 'pony_fan');

    // Shimmie2: namespaces; no rating given is none; no date given is the import's.
    const v1 = at('vidyapics/501');
    t.deepEqual(tags(v1), { gamer_art: 'artist', nintendo_games: 'copyright', mario: 'general' });
    t.is(v1.rating, 'none');
    t.true(Date.now() - Date.parse(v1.createdAt) < 120_000);

    // The post page's API shows the first origin.
    const view = (await (await app.request(`/api/post/${v1.id}`)).json()) as { origin: unknown };
    t.deepEqual(view.origin, { site: 'vidyapics', id: '501', url: 'https://vidya.pics/post/view/501', uploader: null });
  },
);
