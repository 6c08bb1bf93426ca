/**
 * Sources, parents and tag categories (docs/decisions.md §19) through HTTP on a real app: source on
 * upload and edit, kept in history, a source-only edit's webhook with empty Changes, sourceContains;
 * parents (unknown 400, cycles of length 1, 2 and 3 400), children listed, childOf, a parent's delete
 * clearing its children (each an edit with a version); categories set with 0x1000 (403 without),
 * carried by every Tag, ordering a post's tags; aliases and implications naming an unused tag create it.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { jsonCall } from '../helpers/json-call.ts';
import { createUser, type TestUser } from '../helpers/users.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';

let app: TestApp;
let receiver: Receiver;
/** an editor, a moderator (also governs tags), an uploader without the edit bit */
let [editor, mod, uploader]: TestUser[] = [];
let seed = 38_500;

test.before(async () => {
  app = await startTestApp();
  receiver = await startReceiver(204);
  [editor, mod, uploader] = await Promise.all(
    [0x2 | 0x4, 0x2 | 0x4 | 0x1000 | 0x2000, 0x2].map((b) => createUser(app, b)),
  );
});
test.after.always(async () => {
  await app?.close();
  await receiver?.close();
});

const call = (user: TestUser | null, method: string, url: string, body?: unknown) =>
  jsonCall(app, user, method, url, body);

async function upload(metadata: Record<string, unknown> = {}, user = editor): Promise<Record<string, any>> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata, force: '1' }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return res.json();
}
const seqOf = (id: string) => app.services.postRepository.getById(id)!.seq;
const imageIds = async (conditions: unknown[]) => {
  const res = await call(null, 'POST', '/image/search', { conditions, orderBy: 'id', order: 'asc' });
  if (res.status !== 200) throw new Error(`search: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.images.map((i: { id: number }) => i.id) as number[];
};

test.serial(
  'source: on upload and edit, bounded, in history with revert, a webhook with empty Changes, sourceContains',
  async (t) => {
    const hook = await call(editor, 'POST', '/api/webhook', {
      url: receiver.url,
      secret: 's',
      events: ['update'],
      template: '{{json .Changes}}',
    });
    t.is(hook.status, 201);
    const post = await upload({ source: 'https://Example.org/Art/1' });
    t.is(post.source, 'https://Example.org/Art/1');
    t.is(post.parentId, null);
    t.is((await upload()).source, '');
    const tooLong = await app.request('/api/post/', {
      method: 'POST',
      headers: editor.headers,
      body: uploadForm({ image: await randomImage(seed++), metadata: { source: 'x'.repeat(2049) } }),
    });
    t.is(tooLong.status, 400);
    t.is((await call(editor, 'PUT', `/api/post/${post.id}`, { source: 'y'.repeat(2049) })).status, 400);

    const edited = await call(editor, 'PUT', `/api/post/${post.id}`, { source: 'https://example.org/art/2?x=1' });
    t.is(edited.status, 200);
    t.is(edited.body.source, 'https://example.org/art/2?x=1');
    const versions = (await call(null, 'GET', `/api/post/${post.id}/versions`)).body;
    t.is(versions.count, 2);
    t.deepEqual(versions.data[0].changes, {
      source: { old: 'https://Example.org/Art/1', new: 'https://example.org/art/2?x=1' },
    });
    t.is(versions.data[1].source, 'https://Example.org/Art/1');
    // The source-only edit's update event: Changes names only text, tags and rating, so it is empty.
    const [delivered] = await receiver.waitFor(1);
    t.is(delivered.body, '{}');

    t.deepEqual(await imageIds([{ type: 'sourceContains', value: 'ART/2?X' }]), [seqOf(post.id)]);
    t.deepEqual(await imageIds([{ type: 'sourceContains', value: 'art/1' }]), []);
    const reverted = await call(editor, 'POST', `/api/post/${post.id}/revert`, { version: 1 });
    t.is(reverted.body.source, 'https://Example.org/Art/1');
    t.deepEqual(await imageIds([{ type: 'sourceContains', value: 'art/1' }]), [seqOf(post.id)]);
  },
);

test('parent: must exist, no cycles of length 1, 2 or 3; children listed; childOf; revert restores it', async (t) => {
  const a = await upload();
  const b = await upload({ parentId: a.id });
  t.is(b.parentId, a.id);
  const c = await upload({ parentId: String(seqOf(b.id)) }, editor);
  t.is(c.parentId, b.id, 'a post number names the parent too; the view shows its UUID');

  const unknown = await call(editor, 'PUT', `/api/post/${c.id}`, { parentId: '00000000-0000-7000-8000-000000000000' });
  t.is(unknown.status, 400);
  t.deepEqual(unknown.body[0].path, ['parentId']);
  const unknownUpload = await app.request('/api/post/', {
    method: 'POST',
    headers: editor.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: { parentId: '999999999' } }),
  });
  t.is(unknownUpload.status, 400);

  // a → b → c: a under a (1), a under b (2), a under c (3) would each make a post its own ancestor.
  for (const [parent, length] of [
    [a, 1],
    [b, 2],
    [c, 3],
  ] as const) {
    const res = await call(editor, 'PUT', `/api/post/${a.id}`, { parentId: parent.id });
    t.is(res.status, 400, `cycle of length ${length}`);
    t.deepEqual(res.body[0].path, ['parentId']);
  }
  t.is((await call(null, 'GET', `/api/post/${a.id}`)).body.parentId, null, 'nothing stored');
  t.is((await call(uploader, 'PUT', `/api/post/${c.id}`, { parentId: null })).status, 403);

  const children = await call(null, 'GET', `/api/post/${a.id}/children`);
  t.is(children.status, 200);
  t.is(children.body.count, 1);
  t.is(children.body.data[0].id, b.id);
  t.is((await call(null, 'GET', `/api/post/${a.id}/children?limit=-1`)).status, 400);
  t.is((await call(null, 'GET', '/api/post/00000000-0000-7000-8000-000000000000/children')).status, 404);
  t.deepEqual(await imageIds([{ type: 'childOf', value: String(seqOf(a.id)) }]), [seqOf(b.id)]);
  t.deepEqual(await imageIds([{ type: 'childOf', value: b.id }]), [seqOf(c.id)]);
  t.deepEqual(await imageIds([{ type: 'childOf', value: '00000000-0000-7000-8000-000000000000' }]), []);
  t.is((await call(null, 'POST', '/image/search', { conditions: [{ type: 'childOf', value: 'x' }] })).status, 400);

  // Moving c under a, then reverting: the history carries the parent.
  t.is((await call(editor, 'PUT', `/api/post/${c.id}`, { parentId: a.id })).body.parentId, a.id);
  const history = (await call(null, 'GET', `/api/post/${c.id}/versions`)).body;
  t.deepEqual(history.data[0].changes, { parentId: { old: b.id, new: a.id } });
  t.is((await call(editor, 'POST', `/api/post/${c.id}/revert`, { version: 1 })).body.parentId, b.id);
});

test('deleting a parent clears its children, each an edit with a version, searchable', async (t) => {
  const parent = await upload();
  const kids = await Promise.all([1, 2, 3].map(() => upload({ parentId: parent.id })));
  const parentSeq = seqOf(parent.id);
  t.is((await imageIds([{ type: 'childOf', value: String(parentSeq) }])).length, 3);
  t.is((await call(mod, 'DELETE', `/api/post/${parent.id}`)).status, 204);
  for (const kid of kids) {
    t.is((await call(null, 'GET', `/api/post/${kid.id}`)).body.parentId, null);
    const versions = (await call(null, 'GET', `/api/post/${kid.id}/versions`)).body;
    t.is(versions.count, 2);
    t.like(versions.data[0], { parentId: null, editor: { id: mod.id }, changes: { parentId: { old: parent.id } } });
  }
  t.deepEqual(await imageIds([{ type: 'childOf', value: String(parentSeq) }]), []);
});

test('tag categories: 0x1000, every Tag carries one, a post lists artist, copyright, character, general, meta', async (t) => {
  const tags = ['zeta', 'alpha', 'painter', 'series', 'hero', 'lowres'];
  const post = await upload({ tags });
  t.true(post.tags.every((tag: { category: string }) => tag.category === 'general'));
  const set = (name: string, category: unknown, user = mod) =>
    call(user, 'PUT', `/api/tag/${name}/category`, { category });
  t.is((await set('painter', 'artist', editor)).status, 403);
  t.is((await call(null, 'PUT', '/api/tag/painter/category', { category: 'artist' })).status, 401);
  t.is((await set('painter', 'painter')).status, 400);
  t.is((await set('painter', 'artist')).status, 200);
  t.like((await set('series', 'copyright')).body, { name: 'series', category: 'copyright', count: 1 });
  await set('hero', 'character');
  await set('lowres', 'meta');
  const read = (await call(null, 'GET', `/api/post/${post.id}`)).body;
  t.deepEqual(
    read.tags.map((tag: { name: string; category: string }) => `${tag.category}:${tag.name}`),
    ['artist:painter', 'copyright:series', 'character:hero', 'general:alpha', 'general:zeta', 'meta:lowres'],
  );
  t.like((await call(null, 'GET', '/api/tag/painter')).body, { name: 'painter', category: 'artist' });
  const listed = (await call(null, 'GET', '/api/tag?prefix=her')).body.data;
  t.like(listed[0], { name: 'hero', category: 'character' });
  // /image/search keeps tag names only.
  const found = await call(null, 'POST', '/image/search', { conditions: [{ type: 'tagInclude', value: 'painter' }] });
  t.true(found.body.data.images[0].tags.every((tag: unknown) => typeof tag === 'string'));
  // A tag nobody used yet gets its category now, and keeps it when it arrives.
  t.like((await set('future_artist', 'artist')).body, { name: 'future_artist', count: 0 });
  const later = await upload({ tags: ['future_artist'] });
  t.is(later.tags[0].category, 'artist');
});

test('an alias or implication naming a tag nobody used yet creates it (category general)', async (t) => {
  const alias = await call(mod, 'PUT', '/api/tag/kitty_unused/alias', { target: 'cat_unused' });
  t.is(alias.status, 200, JSON.stringify(alias.body));
  const implied = await call(mod, 'PUT', '/api/tag/kitten_new/implies/feline_new');
  t.is(implied.status, 200, JSON.stringify(implied.body));
  const post = await upload({ tags: ['kitty_unused', 'kitten_new'] });
  t.deepEqual(
    post.tags.map((tag: { name: string; category: string }) => `${tag.category}:${tag.name}`),
    ['general:cat_unused', 'general:feline_new', 'general:kitten_new'],
  );
});
