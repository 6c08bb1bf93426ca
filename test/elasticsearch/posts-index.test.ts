import test from 'ava';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import { startTestApp } from '../helpers/app.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { createUser } from '../helpers/users.ts';

test('with every posts index gone, a write fails instead of auto-creating an index under the alias name', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const { es, postsIndex, postRepository } = app.services;
  const user = await createUser(app, 0x2 | 0x4);
  const res = await app.request('/api/post/', {
    method: 'POST',
    headers: user.headers,
    body: uploadForm({ image: await randomImage(77) }),
  });
  t.is(res.status, 201);
  const post = postRepository.getById((await res.json()).id)!;

  // Someone deletes the index (and with it the alias) behind the service's back.
  await es.indices.delete({ index: (await postsIndex.concreteIndices()).join(',') });
  postsIndex.forgetTargets();
  await t.throwsAsync(postsIndex.apply([{ postId: post.id, version: post.version + 1, doc: toPostDocument(post) }]));
  t.false(await es.indices.exists({ index: postsIndex.alias }), 'no index or alias of that name was created');
  t.deepEqual(await postsIndex.concreteIndices(), []);
});
