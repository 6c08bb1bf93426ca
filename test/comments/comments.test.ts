/**
 * docs/decisions.md §18 through the API, comments: posting (each refusal), listing, editing, deleting, the
 * newest list, the pace limit, hostile bodies, and what deleting a post or an account does to them; the
 * counts on the Post and in the index with the write's answer, with no version and no webhook.
 */
import test from 'ava';
import type { TestApp } from '../helpers/app.ts';
import { quickUsers } from '../helpers/quick-users.ts';
import { eventually } from '../webhooks/receiver.ts';
import { calls, COMMENT, startConversationApp } from '../helpers/conversation-app.ts';

let app: TestApp;
let posts: { id: string; seq: number }[];
test.before(async () => {
  ({ app, posts } = await startConversationApp(3700));
});
test.after.always(() => app?.close());
const { api, json, comment, getPost, search, indexed, noEditOf } = calls(() => app);

test('comment refusals: 401, 403 without 0x4000, 400 empty or over 10,000 characters, 404 unknown post', async (t) => {
  const [mute] = quickUsers(app, 1, 0x2 | 0x4);
  const [talker] = quickUsers(app, 1, COMMENT);
  const post = posts[0].id;
  t.is((await api(`/api/post/${post}/comment`, 'POST', {}, { body: 'hi' })).status, 401);
  t.is((await comment(post, mute, 'hi')).status, 403);
  for (const body of ['', '   \n\t ', 'x'.repeat(10_001), 42, undefined])
    t.is((await comment(post, talker, body)).status, 400, JSON.stringify(body)?.slice(0, 20));
  t.is((await json(`/api/post/${post}/comment`, 'POST', talker.headers, { body: 'x', extra: 1 })).status, 400);
  t.is((await comment('01900000-0000-7000-8000-000000000000', talker, 'hi')).status, 404);
  t.is((await comment('nope', talker, 'hi')).status, 404);
  t.is((await json('/api/post/01900000-0000-7000-8000-000000000000/comment', 'GET')).status, 404);
  t.is((await json('/api/comment?offset=-1', 'GET')).status, 400);
  t.is((await getPost(post)).comments, 0, 'nothing stored');
  // 10,000 characters (code points, emoji included) after trimming is the most
  const longest = `${'🙂'.repeat(5000)}${'y'.repeat(5000)}`;
  const ok = await comment(post, talker, `  ${longest}\n`);
  t.is(ok.status, 201);
  t.is(ok.body.body, longest);
  t.is((await api(`/api/comment/${ok.body.id}`, 'DELETE', talker.headers)).status, 204);
});

test.serial('comments: post, list oldest first, edit by the author, delete by the author or 0x2000', async (t) => {
  const [alice, bob] = quickUsers(app, 2, COMMENT);
  const [moderator] = quickUsers(app, 1, 0x2000);
  const post = posts[1];
  const before = await getPost(post.id);
  const first = await comment(post.id, alice, '  hello\nworld  ');
  t.is(first.status, 201);
  t.like(first.body, {
    postId: post.id,
    author: { id: alice.id, name: alice.name },
    body: 'hello\nworld',
    edited: false,
  });
  t.is(first.body.createdAt, first.body.updatedAt);
  const second = (await comment(post.id, bob, 'see post #1')).body;
  const third = (await comment(String(post.seq), alice, 'by number')).body;

  // counted on the Post and in the index with the write's answer; no version, no webhook, no change time
  const after = await getPost(post.id);
  t.is(after.comments, 3);
  t.is(after.updatedAt, before.updatedAt);
  t.like(await indexed(post.id), { comments: 3, commented_by: [alice.id, bob.id].sort((a, b) => a - b) });
  t.is((await json(`/api/post/${post.id}/versions`, 'GET')).body.count, 1);
  t.true(noEditOf(post.id));
  for (const name of [bob.name, bob.name.toUpperCase()])
    t.deepEqual(
      (await search({ conditions: [{ type: 'commentedBy', value: name }] })).images.map((i) => i.id),
      [post.seq],
    );
  t.is((await search({ conditions: [{ type: 'commentedBy', value: 'nobody_at_all' }] })).total, 0);

  const list = (await json(`/api/post/${post.id}/comment`, 'GET')).body;
  t.is(list.count, 3);
  t.deepEqual(
    list.data.map((c: { id: number }) => c.id),
    [first.body.id, second.id, third.id],
  );
  t.deepEqual((await json(`/api/post/${post.id}/comment?offset=1&limit=1`, 'GET')).body.data, [second]);

  // edit: the author only
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', bob.headers, { body: 'mine now' })).status, 403);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', moderator.headers, { body: 'x' })).status, 403);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', {}, { body: 'x' })).status, 401);
  t.is((await json(`/api/comment/${first.body.id}`, 'PATCH', alice.headers, { body: ' ' })).status, 400);
  t.is((await json('/api/comment/999999', 'PATCH', alice.headers, { body: 'x' })).status, 404);
  t.is((await json('/api/comment/abc', 'PATCH', alice.headers, { body: 'x' })).status, 404);
  const edited = await json(`/api/comment/${first.body.id}`, 'PATCH', alice.headers, { body: ' changed ' });
  t.is(edited.status, 200);
  t.like(edited.body, { id: first.body.id, body: 'changed', edited: true, createdAt: first.body.createdAt });
  // an author whose right to comment was taken cannot rewrite the comment, but may delete it
  const [silenced] = quickUsers(app, 1, COMMENT);
  const said = (await comment(post.id, silenced, 'before')).body;
  app.services.accounts.users.setPermission(silenced.id, 0);
  t.is((await json(`/api/comment/${said.id}`, 'PATCH', silenced.headers, { body: 'after' })).status, 403);
  t.is((await api(`/api/comment/${said.id}`, 'DELETE', silenced.headers)).status, 204);

  // delete: someone else 403; a moderator or the author 204; then 404
  t.is((await api(`/api/comment/${second.id}`, 'DELETE', alice.headers)).status, 403);
  t.is((await api(`/api/comment/${second.id}`, 'DELETE')).status, 401);
  t.is((await api(`/api/comment/${second.id}`, 'DELETE', moderator.headers)).status, 204);
  t.is((await api(`/api/comment/${third.id}`, 'DELETE', alice.headers)).status, 204);
  t.is((await api(`/api/comment/${third.id}`, 'DELETE', alice.headers)).status, 404);
  t.is((await getPost(post.id)).comments, 1);
  t.like(await indexed(post.id), { comments: 1, commented_by: [alice.id] });
  t.is((await search({ conditions: [{ type: 'commentedBy', value: bob.name }] })).total, 0);
});

test.serial('the newest comments site-wide and by author; an unknown author has none', async (t) => {
  const [carol] = quickUsers(app, 1, COMMENT);
  const a = (await comment(posts[2].id, carol, 'one')).body;
  const b = (await comment(posts[3].id, carol, 'two')).body;
  const newest = (await json('/api/comment?limit=2', 'GET')).body;
  t.deepEqual(newest.data, [b, a]);
  t.true(newest.count >= 2);
  t.deepEqual((await json(`/api/comment?author=${carol.name.toUpperCase()}`, 'GET')).body, { count: 2, data: [b, a] });
  t.deepEqual((await json('/api/comment?author=nobody_at_all', 'GET')).body, { count: 0, data: [] });
  t.deepEqual((await json(`/api/comment?author=${carol.name}&limit=0`, 'GET')).body, { count: 2, data: [] });
});

test.serial('the 11th comment in a minute is 429 with Retry-After; nothing stored', async (t) => {
  const [chatty] = quickUsers(app, 1, COMMENT);
  // eleven sent at once: ten are stored, one is refused
  const sent = await Promise.all(Array.from({ length: 11 }, (_, i) => comment(posts[4].id, chatty, `message ${i}`)));
  t.deepEqual(sent.map((r) => r.status).sort(), [...Array(10).fill(201), 429]);
  t.is((await comment('01900000-0000-7000-8000-000000000000', chatty, 'lost')).status, 404, 'refused before the pace');
  const refused = await comment(posts[4].id, chatty, 'one more');
  t.is(refused.status, 429);
  t.regex(refused.body.error, /10 comments a minute/);
  const wait = Number(refused.headers.get('retry-after'));
  t.true(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
  t.is((await json(`/api/comment?author=${chatty.name}&limit=0`, 'GET')).body.count, 10);
  // another account is not slowed by it
  const [other] = quickUsers(app, 1, COMMENT);
  t.is((await comment(posts[4].id, other, 'me too')).status, 201);
});

test.serial('hostile bodies come back as the very text that was sent', async (t) => {
  const [mallory] = quickUsers(app, 1, COMMENT);
  for (const body of [
    '<img src=x onerror=alert(1)>',
    '<svg/onload=alert(1)>',
    'javascript:alert(1) and [x](javascript:alert(1))',
    '"><script>alert(1)</script>',
  ]) {
    const made = await comment(posts[5].id, mallory, body);
    t.is(made.status, 201);
    t.is(made.body.body, body);
  }
});

test.serial(
  'deleting a post deletes its comments and votes; deleting an account keeps its comments, authorless',
  async (t) => {
    const [leaver, stayer] = quickUsers(app, 2, COMMENT);
    const post = posts[5];
    const kept = (await comment(post.id, leaver, 'I was here')).body;
    await json(`/api/post/${post.id}/vote`, 'PUT', leaver.headers, { value: 1 });
    await comment(post.id, stayer, 'me too');
    const before = await getPost(post.id);
    app.services.accounts.remove(leaver.name);
    const list = (await json(`/api/post/${post.id}/comment?limit=1000`, 'GET')).body;
    const orphan = list.data.find((c: { id: number }) => c.id === kept.id);
    t.deepEqual(orphan, { ...kept, author: null });
    t.like(await getPost(post.id), { comments: before.comments, upvotes: before.upvotes - 1 });
    // the account's removal answers at its commit; the documents follow with the relay's next pass
    const commenters = await eventually(async () => {
      const d = await indexed(post.id);
      return (d.upvotes as number) === before.upvotes - 1 ? (d.commented_by as number[]) : undefined;
    });
    t.false(commenters!.includes(leaver.id));
    t.true(commenters!.includes(stayer.id));

    const doomed = posts[4];
    const ids = (await json(`/api/post/${doomed.id}/comment?limit=1000`, 'GET')).body.data.map(
      (c: { id: number }) => c.id,
    );
    t.true(ids.length > 0);
    const [deleter] = quickUsers(app, 1, 0x2000);
    t.is((await api(`/api/post/${doomed.id}`, 'DELETE', deleter.headers)).status, 204);
    for (const id of ids) t.is((await api(`/api/comment/${id}`, 'DELETE', deleter.headers)).status, 404);
    t.is(app.services.db.prepare('SELECT count(*) FROM comments WHERE post_seq = ?').pluck().get(doomed.seq), 0);
  },
);
