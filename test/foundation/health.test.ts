import test from 'ava';
import { readPostsMapping } from '../../src/elasticsearch/posts-index.ts';
import { startTestApp } from '../helpers/app.ts';

test('readyz reports SQLite and Elasticsearch up; unknown routes are JSON 404', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const health = await app.request('/healthz');
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });
  const ready = await app.request('/readyz');
  t.is(ready.status, 200);
  const body = await ready.json();
  t.like(body, { status: 'ready', sqlite: 'up', elasticsearch: 'up' });
  // The shared test node is one node: green, or yellow if some other test's index wants a replica.
  t.regex(body.cluster, /^(green|yellow)$/);
  // docs/decisions.md §21: the ffmpeg in use is named, and where it was found (the test app's
  // environment decides which: test/video/media.test.ts checks the order).
  t.regex(body.ffmpeg.ffmpeg, /ffmpeg$/);
  t.regex(body.ffmpeg.ffprobe, /ffprobe$/);
  t.regex(body.ffmpeg.source, /^(setting|system|npm)$/);
  const missing = await app.request('/nope');
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { error: 'not found' });
  t.truthy(missing.headers.get('x-request-id'));
});

test('the posts alias exists after start-up', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const { postsIndex } = app.services;
  t.true(await app.services.es.indices.existsAlias({ name: postsIndex.alias }));
  t.regex(
    (await postsIndex.aliasTarget())!,
    new RegExp(`^${postsIndex.prefix}-posts-v${readPostsMapping().mappingVersion}-`),
  );
});

test('readyz answers 503 at once when the posts index is gone, and still reports the cluster', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const { es, postsIndex } = app.services;
  await es.indices.delete({ index: postsIndex.pattern });
  const started = performance.now();
  const ready = await app.request('/readyz');
  t.true(performance.now() - started < 3000, 'a missing index is not waited for');
  t.is(ready.status, 503);
  t.like(await ready.json(), { status: 'not ready', sqlite: 'up', elasticsearch: 'down' });
});
