/**
 * Tag governance (docs/decisions.md §15, issue 24): aliases, implications and OR groups through the HTTP
 * API, with the bad input the issue lists, each a 400 with its reason or a 403.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

let app: TestApp;
let admin: TestUser;
let editor: TestUser;
let seed = 24_100;

test.before(async () => {
  app = await startTestApp();
  admin = await createUser(app, 0x2 | 0x4 | 0x1000);
  editor = await createUser(app, 0x2 | 0x4);
});
test.after.always(() => app?.close());

async function call(method: string, url: string, body?: unknown, who: TestUser = admin) {
  const res = await app.request(url, {
    method,
    headers: { ...who.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
async function upload(tags: string[]): Promise<string> {
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: editor.headers,
    body: uploadForm({ image: await randomImage(seed++), metadata: { tags } }),
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()).id;
}
const tagsOf = async (id: string) =>
  ((await call('GET', `/api/post/${id}`)).body.tags as { name: string }[]).map((t) => t.name).sort();
const versions = async (id: string) => (await call('GET', `/api/post/${id}/versions`)).body.count as number;
async function search(conditions: { type: string; value: string }[]): Promise<string[]> {
  const { status, body } = await call('POST', '/image/search', { conditions });
  if (status !== 200) throw new Error(`search ${status} ${JSON.stringify(body)}`);
  // Images carry the post number; the tests name posts by UUID.
  const ids = (body.data.images as { id: number }[]).map((i) => app.services.postRepository.getBySeq(i.id)!.id);
  return ids.sort();
}
/** Waits until no implication job is running (the server's background loop). */
async function jobsDone(timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (app.services.db.prepare("SELECT count(*) FROM tag_jobs WHERE state = 'running'").pluck().get() !== 0) {
    if (Date.now() > deadline) throw new Error('implication jobs did not finish');
    await new Promise((r) => setTimeout(r, 50));
  }
  await app.services.relay.drain();
}

test.serial(
  'an alias retags existing posts as edits, maps writes and searches to its target, and is suggested',
  async (t) => {
    const cat = await upload(['gv-cat', 'gv-a']);
    const kitty = await upload(['gv-kitty', 'gv-b']);
    t.is(await versions(kitty), 1);
    const put = await call('PUT', '/api/tag/gv-kitty/alias', { target: 'gv-cat' });
    t.is(put.status, 200);
    t.deepEqual(put.body, { name: 'gv-kitty', target: 'gv-cat', retagged: 1 });
    t.deepEqual(await tagsOf(kitty), ['gv-b', 'gv-cat']);
    t.is(await versions(kitty), 2, 'the retag is an edit: one new version');
    // Writes naming the alias store the target, on upload and on edit.
    const third = await upload(['gv-kitty']);
    t.deepEqual(await tagsOf(third), ['gv-cat']);
    t.is((await call('PATCH', `/api/post/${cat}`, { tags: ['gv-kitty', 'gv-a'] }, editor)).status, 200);
    t.deepEqual(await tagsOf(cat), ['gv-a', 'gv-cat']);
    // Searches naming the alias mean the target.
    await app.services.relay.drain();
    t.deepEqual(await search([{ type: 'tagInclude', value: 'gv-kitty' }]), [cat, kitty, third].sort());
    t.deepEqual(
      await search([
        { type: 'tagInclude', value: 'gv-kitty' },
        { type: 'tagExclude', value: 'gv-a' },
      ]),
      [kitty, third].sort(),
    );
    const posts = await call('POST', '/api/post/search', {
      filter: [{ type: 'tag', op: 'include', value: 'gv-kitty' }],
    });
    t.is(posts.body.count, 3);
    // Facets leave out the target of a tagInclude naming its alias.
    const faceted = await call('POST', '/image/search', {
      conditions: [{ type: 'tagInclude', value: 'gv-kitty' }],
      facets: ['tags'],
    });
    t.false((faceted.body.data.facets.tags as { name: string }[]).some((f) => f.name === 'gv-cat'));
    // The autocomplete suggests the target on an alias hit.
    const suggested = await call('GET', '/api/tag?prefix=gv-kit');
    t.deepEqual(suggested.body.data, [
      { id: suggested.body.data[0].id, name: 'gv-cat', count: 3, category: 'general', aliasOf: 'gv-kitty' },
    ]);
    t.is(suggested.body.count, 1);
    // Listed, shown on the target, removable.
    const list = await call('GET', '/api/tag/alias?limit=100');
    t.true(
      (list.body.data as { name: string; target: string }[]).some(
        (a) => a.name === 'gv-kitty' && a.target === 'gv-cat',
      ),
    );
    t.deepEqual((await call('GET', '/api/tag/gv-cat')).body.aliases, ['gv-kitty']);
    t.is((await call('DELETE', '/api/tag/gv-kitty/alias')).status, 204);
    t.is((await call('DELETE', '/api/tag/gv-kitty/alias')).status, 404);
    t.deepEqual(await tagsOf(kitty), ['gv-b', 'gv-cat'], 'removing an alias changes no post');
  },
);

test.serial('bad aliases are 400 with the reason; without 0x1000 403', async (t) => {
  await upload(['al-x', 'al-y', 'al-z']);
  t.is((await call('PUT', '/api/tag/al-y/alias', { target: 'al-x' })).status, 200);
  const cases: [string, unknown, RegExp][] = [
    ['al-x', { target: 'al-x' }, /alias of itself/],
    ['al-z', { target: 'al-y' }, /itself an alias/],
    ['al-x', { target: 'al-z' }, /target of other aliases/],
    // A target nobody used yet is no longer refused: it is created (docs/decisions.md §19, issue 38;
    // test/pools/origin-and-categories.test.ts).
    ['al-w', {}, /target/],
    ['al%20w', { target: 'al-x' }, /whitespace/],
  ];
  for (const [name, body, reason] of cases) {
    const res = await call('PUT', `/api/tag/${name}/alias`, body);
    t.is(res.status, 400, `${name} ${JSON.stringify(body)}`);
    t.regex(JSON.stringify(res.body), reason);
  }
  t.is((await call('PUT', '/api/tag/al-q/alias', { target: 'al-x' }, editor)).status, 403);
  t.is((await call('DELETE', '/api/tag/al-y/alias', undefined, editor)).status, 403);
  t.is(
    (
      await app.request('/api/tag/al-q/alias', {
        method: 'PUT',
        headers: { 'Content-Type': 'application/json' },
        body: '{"target":"al-x"}',
      })
    ).status,
    401,
  );
});

test.serial('implications apply to new writes at once and to existing posts by a job; cycles are 400', async (t) => {
  const old = await upload(['im-cheetah']);
  const other = await upload(['im-lion', 'im-bigcat']);
  const put = await call('PUT', '/api/tag/im-cheetah/implies/im-bigcat');
  t.is(put.status, 200);
  t.like(put.body, { tag: 'im-cheetah', implies: 'im-bigcat' });
  t.truthy(put.body.job);
  t.is((await call('PUT', '/api/tag/im-bigcat/implies/im-lion')).status, 200);
  await jobsDone();
  t.deepEqual(await tagsOf(old), ['im-bigcat', 'im-cheetah', 'im-lion'], 'transitive, applied to the existing post');
  t.is(await versions(old), 3, 'one version per change the jobs made');
  t.deepEqual(await tagsOf(other), ['im-bigcat', 'im-lion'], 'nothing implied by lion: untouched');
  t.is(await versions(other), 1);
  const fresh = await upload(['im-cheetah']);
  t.deepEqual(await tagsOf(fresh), ['im-bigcat', 'im-cheetah', 'im-lion'], 'an upload carries the closure');
  // Revert to version 1 still carries the closure (the kernel resolves every write).
  t.is((await call('POST', `/api/post/${old}/revert`, { version: 1 }, editor)).status, 200);
  t.deepEqual(await tagsOf(old), ['im-bigcat', 'im-cheetah', 'im-lion']);
  const tag = await call('GET', '/api/tag/im-bigcat');
  t.like(tag.body, { name: 'im-bigcat', implies: ['im-lion'], impliedBy: ['im-cheetah'] });
  t.is(tag.body.jobs[0].state, 'done');
  // Bad input.
  for (const [url, reason] of [
    ['/api/tag/im-lion/implies/im-cheetah', /cycle/], // through three tags
    ['/api/tag/im-bigcat/implies/im-cheetah', /cycle/], // direct
    ['/api/tag/im-lion/implies/im-lion', /itself/],
    // Unused tags are created, not refused (docs/decisions.md §19, issue 38).
  ] as const) {
    const res = await call('PUT', url);
    t.is(res.status, 400, url);
    t.regex(JSON.stringify(res.body), reason);
  }
  t.is((await call('PUT', '/api/tag/im-lion/implies/im-bigcat', undefined, editor)).status, 403);
  t.is((await call('DELETE', '/api/tag/im-cheetah/implies/im-bigcat', undefined, editor)).status, 403);
  // Removing one removes nothing.
  t.is((await call('DELETE', '/api/tag/im-cheetah/implies/im-bigcat')).status, 204);
  t.deepEqual(await tagsOf(old), ['im-bigcat', 'im-cheetah', 'im-lion']);
  t.deepEqual(await tagsOf(await upload(['im-cheetah'])), ['im-cheetah']);
});

test.serial('tagAny: all tagAny conditions of a request form one OR group', async (t) => {
  const a = await upload(['or-a', 'or-x']);
  const b = await upload(['or-b']);
  await upload(['or-c']);
  await app.services.relay.drain();
  t.deepEqual(
    await search([
      { type: 'tagAny', value: 'or-a' },
      { type: 'tagAny', value: 'or-b' },
    ]),
    [a, b].sort(),
  );
  t.deepEqual(
    await search([
      { type: 'tagAny', value: 'or-a' },
      { type: 'tagAny', value: 'or-b' },
      { type: 'tagExclude', value: 'or-x' },
    ]),
    [b],
  );
  t.deepEqual(await search([{ type: 'tagAny', value: 'or-none' }]), []);
});
