import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { SERVER_JS } from '../helpers/compiled.ts';

const run = promisify(execFile);

test('defaults follow docs/decisions.md §1', (t) => {
  const c = loadConfig({});
  t.is(c.host, '127.0.0.1');
  t.is(c.port, 3000);
  t.is(c.publicUrl, 'http://127.0.0.1:3000');
  t.is(c.mediaUrl, 'http://127.0.0.1:3000/media');
  t.is(c.elasticsearch.indexPrefix, 'imgpost');
  t.false(c.webhookAllowPrivate);
  t.true(c.hashWorkers >= 1);
});

test('PUBLIC_URL and MEDIA_URL drive returned URLs', (t) => {
  const c = loadConfig({ PUBLIC_URL: 'https://img.example/', PORT: '8080' });
  t.is(c.publicUrl, 'https://img.example');
  t.is(c.mediaUrl, 'https://img.example/media');
  t.is(loadConfig({ MEDIA_URL: 'https://cdn.example/m' }).mediaUrl, 'https://cdn.example/m');
});

test('MEDIA_REDIRECT: off by default; presigned only with an S3 store; the URL life bounded', (t) => {
  t.deepEqual(loadConfig({}).mediaRedirect, { mode: 'off', expiresS: 300 });
  const s3 = { MEDIA_STORE: 's3://imgpost', S3_ENDPOINT: 'http://127.0.0.1:9' };
  t.deepEqual(loadConfig({ ...s3, MEDIA_REDIRECT: 'presigned', MEDIA_REDIRECT_EXPIRES_S: '60' }).mediaRedirect, { mode: 'presigned', expiresS: 60 });
  t.throws(() => loadConfig({ MEDIA_REDIRECT: 'presigned' }), { instanceOf: ConfigError, message: /^invalid configuration: MEDIA_REDIRECT="presigned": needs an S3 media store/ });
  t.throws(() => loadConfig({ ...s3, MEDIA_REDIRECT: 'yes' }), { instanceOf: ConfigError, message: /^invalid configuration: MEDIA_REDIRECT="yes"/ });
  t.throws(() => loadConfig({ ...s3, MEDIA_REDIRECT_EXPIRES_S: '5' }), { instanceOf: ConfigError, message: /^invalid configuration: MEDIA_REDIRECT_EXPIRES_S="5"/ });
});

for (const [name, value] of [
  ['PORT', 'abc'],
  ['PORT', '70000'],
  ['HASH_WORKERS', '0'],
  ['SESSION_SECRET', 'short'],
  ['WEBHOOK_ALLOW_PRIVATE', 'maybe'],
  ['ELASTICSEARCH_URL', 'not a url'],
  ['ELASTICSEARCH_URL', 'http://es1:9200,'],
  ['ELASTICSEARCH_URL', 'http://es1:9200,ftp://es2'],
  ['ELASTICSEARCH_INDEX_PREFIX', 'Upper Case'],
] as const) {
  test(`bad ${name}=${value} is refused with a line naming it`, (t) => {
    const err = t.throws(() => loadConfig({ [name]: value }), { instanceOf: ConfigError });
    t.true(err!.message.includes(name));
    t.false(err!.message.includes('\n'));
  });
}

test('ELASTICSEARCH_URL takes one node or a comma-separated list, normalised', (t) => {
  t.is(loadConfig({ ELASTICSEARCH_URL: 'https://es.example:9200/' }).elasticsearch.url, 'https://es.example:9200');
  t.is(loadConfig({ ELASTICSEARCH_URL: 'http://es1:9200/, http://es2:9200' }).elasticsearch.url, 'http://es1:9200,http://es2:9200');
});

test('the server exits non-zero with one line naming a bad setting', async (t) => {
  const err = await run(process.execPath, [SERVER_JS], { env: { ...process.env, PORT: 'abc' } }).catch((e) => e);
  t.not(err.code, 0);
  const lines = String(err.stderr).trim().split('\n');
  t.is(lines.length, 1);
  t.regex(lines[0], /PORT="abc"/);
});
