import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { ConfigError, childProcessEnv, cliDebug, loadConfig, loadDevServicesConfig } from '../../src/config.ts';
import { SERVER_JS } from '../helpers/compiled.ts';

const run = promisify(execFile);

test('defaults follow docs/decisions.md §1', (t) => {
  const c = loadConfig({});
  t.is(c.host, '127.0.0.1');
  t.is(c.port, 3000);
  // docs/decisions.md §18: a domain, so passkeys work out of the box; still listening on HOST
  t.is(c.publicUrl, 'http://localhost:3000');
  t.is(c.mediaUrl, 'http://localhost:3000/media');
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
  t.deepEqual(loadConfig({ ...s3, MEDIA_REDIRECT: 'presigned', MEDIA_REDIRECT_EXPIRES_S: '60' }).mediaRedirect, {
    mode: 'presigned',
    expiresS: 60,
  });
  t.throws(() => loadConfig({ MEDIA_REDIRECT: 'presigned' }), {
    instanceOf: ConfigError,
    message: /^invalid configuration: MEDIA_REDIRECT="presigned": needs an S3 media store/,
  });
  t.throws(() => loadConfig({ ...s3, MEDIA_REDIRECT: 'yes' }), {
    instanceOf: ConfigError,
    message: /^invalid configuration: MEDIA_REDIRECT="yes"/,
  });
  t.throws(() => loadConfig({ ...s3, MEDIA_REDIRECT_EXPIRES_S: '5' }), {
    instanceOf: ConfigError,
    message: /^invalid configuration: MEDIA_REDIRECT_EXPIRES_S="5"/,
  });
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
  t.is(
    loadConfig({ ELASTICSEARCH_URL: 'http://es1:9200/, http://es2:9200' }).elasticsearch.url,
    'http://es1:9200,http://es2:9200',
  );
});

test('the server exits non-zero with one line naming a bad setting', async (t) => {
  const err = await run(process.execPath, [SERVER_JS], { env: { ...process.env, PORT: 'abc' } }).catch((e) => e);
  t.not(err.code, 0);
  const lines = String(err.stderr).trim().split('\n');
  t.is(lines.length, 1);
  t.regex(lines[0], /PORT="abc"/);
});

test('a boolean setting takes 1/0, true/false, yes/no or on/off in any case, and names itself when it is none', (t) => {
  t.true(loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'Yes' }).webhookAllowPrivate);
  t.false(loadConfig({ BACKGROUND_THUMBNAILS: 'off' }).backgroundThumbnails);
  t.throws(() => loadConfig({ ROBUST_DESCRIPTORS: '2' }), {
    instanceOf: ConfigError,
    message: /^invalid configuration: ROBUST_DESCRIPTORS="2": expected 1 or 0/,
  });
});

test('the S3 settings are read only for a store on S3, through the same declarations', (t) => {
  t.is(loadConfig({ S3_TIMEOUT_MS: '5s' }).s3, undefined);
  const s3 = { MEDIA_STORE: 's3://imgpost/media', S3_ENDPOINT: 'http://127.0.0.1:9/' };
  t.like(loadConfig(s3).s3, {
    bucket: 'imgpost',
    prefix: 'media/',
    endpoint: 'http://127.0.0.1:9',
    forcePathStyle: true,
    region: 'us-east-1',
    timeoutMs: 10_000,
    maxAttempts: 3,
  });
  const other = loadConfig({ ...s3, S3_FORCE_PATH_STYLE: '0', AWS_REGION: 'eu-west-1' }).s3;
  t.like(other, { forcePathStyle: false, region: 'eu-west-1' });
  const bad = (env: Record<string, string>, message: RegExp) =>
    t.throws(() => loadConfig(env), { instanceOf: ConfigError, message });
  bad({ ...s3, S3_TIMEOUT_MS: '5s' }, /^invalid configuration: S3_TIMEOUT_MS="5s": /);
  bad({ ...s3, S3_SECRET_ACCESS_KEY: 's' }, /^invalid configuration: S3_ACCESS_KEY_ID="": .*go together/);
  // Another bucket with the same S3_* settings; a bad location names where it came from.
  t.like(loadConfig(s3).s3At('s3://other'), { bucket: 'other', prefix: '', endpoint: 'http://127.0.0.1:9' });
  t.throws(() => loadConfig(s3).s3At('local'), {
    instanceOf: ConfigError,
    message: /^invalid configuration: the recorded media store="local": /,
  });
});

test('the development services read their settings from the same module, checked alike', (t) => {
  const dev = loadDevServicesConfig({});
  t.is(dev.elasticsearch.port, 9277);
  t.is(dev.elasticsearch.home, undefined);
  t.is(dev.s3proxy.heap, '256m');
  t.is(loadDevServicesConfig({ IMGPOST_S3_HOME: 'rel' }).s3proxy.home, path.resolve('rel'));
  for (const [name, value, why] of [
    ['IMGPOST_ES_PORT', '65436', 'must be a port number below 65436'],
    ['IMGPOST_ES_HEAP', 'lots', 'expected a JVM size such as 512m or 1g'],
    ['IMGPOST_S3_PORT', '0', 'must be a port number'],
  ]) {
    const message = `invalid configuration: ${name}=${JSON.stringify(value)}: ${why}`;
    t.throws(() => loadDevServicesConfig({ [name]: value }), { instanceOf: ConfigError, message });
  }
  // A bad product setting does not stop the dev services, nor the reverse.
  t.notThrows(() => loadDevServicesConfig({ PORT: 'abc' }));
  t.notThrows(() => loadConfig({ IMGPOST_ES_PORT: 'abc' }));
});

test('a child process gets this environment with the changes made, undefined removing a variable', (t) => {
  t.deepEqual(childProcessEnv({ B: '2', C: undefined }, { A: '1', C: '3' }), { A: '1', B: '2' });
});

test('IMGPOST_DEBUG: any text turns it on', (t) => {
  t.false(cliDebug({}));
  t.false(cliDebug({ IMGPOST_DEBUG: '' }));
  t.true(cliDebug({ IMGPOST_DEBUG: 'yes please' }));
});
