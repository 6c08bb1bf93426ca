/**
 * ELASTICSEARCH_REPLICAS on the shared one-node cluster (values that keep it green): a count pins
 * number_of_replicas, a range sets auto_expand_replicas, and the server applies a changed value to
 * the live index at start-up, with no reindex.
 */
import fs from 'node:fs';
import test from 'ava';
import { replicaSettings } from '../../src/elasticsearch/posts-index.ts';
import { startTestApp, tempDir } from '../helpers/app.ts';
import { freePort, startChild } from '../reliability/child-server.ts';
import type { EsClient } from '../../src/elasticsearch/client.ts';

const replicaSettingsOf = async (es: EsClient, alias: string) => {
  const res = await es.indices.getSettings({ index: alias, flat_settings: true });
  const [index, s] = Object.entries(res)[0];
  const settings = s.settings as Record<string, string>;
  return {
    index,
    replicas: settings['index.number_of_replicas'],
    autoExpand: settings['index.auto_expand_replicas'] ?? 'false',
  };
};

test('a count is number_of_replicas with auto-expansion off; a range is auto_expand_replicas', (t) => {
  t.deepEqual(replicaSettings('2'), { number_of_replicas: 2, auto_expand_replicas: 'false' });
  t.deepEqual(replicaSettings('0-1'), { auto_expand_replicas: '0-1' });
  t.deepEqual(replicaSettings('0-all'), { auto_expand_replicas: '0-all' });
});

test('the posts index is created with the setting, and the server applies a changed one to the live index at start-up', async (t) => {
  t.timeout(120_000);
  const app = await startTestApp({ ELASTICSEARCH_REPLICAS: '0' });
  t.teardown(() => app.close());
  const { es, postsIndex } = app.services;
  const created = await replicaSettingsOf(es, postsIndex.alias);
  t.like(created, { replicas: '0', autoExpand: 'false' });

  // The real server on the same index, with another value: the index changes, nothing is rebuilt.
  const env = {
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277',
    ELASTICSEARCH_INDEX_PREFIX: postsIndex.prefix,
    DATA_DIR: tempDir(),
    PORT: String(await freePort()),
    LOG_LEVEL: 'info',
  };
  t.teardown(() => fs.rmSync(env.DATA_DIR, { recursive: true, force: true }));
  const first = await startChild({ ...env, ELASTICSEARCH_REPLICAS: '0-2' });
  t.teardown(() => first.stop());
  t.like(await replicaSettingsOf(es, postsIndex.alias), { index: created.index, autoExpand: '0-2' });
  t.regex(first.output(), /applied ELASTICSEARCH_REPLICAS to the posts index/);
  await first.stop();

  // Started again with the same value: nothing to change, nothing logged.
  const second = await startChild({ ...env, ELASTICSEARCH_REPLICAS: '0-2' });
  t.teardown(() => second.stop());
  await second.stop();
  t.notRegex(second.output(), /applied ELASTICSEARCH_REPLICAS/);
  t.like(await replicaSettingsOf(es, postsIndex.alias), { index: created.index, autoExpand: '0-2' });
});
