import test from 'ava';
import { startTestApp } from '../helpers/app.ts';

test('readyz reports SQLite and Elasticsearch up; unknown routes are JSON 404', async (t) => {
  const app = await startTestApp();
  t.teardown(() => app.close());
  const health = await app.request('/healthz');
  t.is(health.status, 200);
  t.deepEqual(await health.json(), { status: 'ok' });
  const ready = await app.request('/readyz');
  t.is(ready.status, 200);
  t.like(await ready.json(), { sqlite: 'up', elasticsearch: 'up' });
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
  t.regex((await postsIndex.aliasTarget())!, new RegExp(`^${postsIndex.prefix}-posts-v1-`));
});
