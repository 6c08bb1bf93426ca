/**
 * `imgpost media migrate --to` (issue 26) beside a live server, all real processes: a child server
 * on the local store, the suite's S3Proxy, the CLI. Local → S3 killed with SIGKILL part-way, run
 * again: it resumes and finishes, every image is byte-identical (sha256) in the bucket, the server
 * answered every GET /media and accepted every upload meanwhile, and afterwards serves from the
 * bucket (the local files moved away), and a backup reads the bucket. Then back to local once. And, while the first
 * images are uploaded, the refusals: an unknown store, the store already in use, a bucket that does not exist:
 * a clear message, an exit code, nothing changed.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { S3MediaStore } from '../../src/media-store/s3-store.ts';
import { destDir, isolatedEnv } from '../backup/env.ts';
import { randomImage, uploadForm } from '../helpers/fixtures.ts';
import { bucketNameOf, bucketStore, sharedS3Env } from '../helpers/s3.ts';
import { cli, cliUser, startChild, type ChildServer } from '../reliability/child-server.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const shardOf = (name: string) => `${name.slice(0, 36).slice(-2)}/${name}`;

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
  }
}

/** Keys of the bucket, and each object's sha256. */
async function bucketObjects(store: S3MediaStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const o of store.list('')) {
    const read = await store.get(o.key);
    const chunks: Buffer[] = [];
    for await (const c of read!.body) chunks.push(c as Buffer);
    out.set(o.key, sha256(Buffer.concat(chunks)));
  }
  return out;
}

test('local → S3 killed part-way, run again: finishes byte-identical while the server serves and takes uploads; then back to local; refusals change nothing', async (t) => {
  t.timeout(120_000);
  const t0 = Date.now();
  const mark = (what: string) => t.log(`${what}: ${Date.now() - t0} ms`);
  const s3 = await sharedS3Env();
  const target = `s3://${bucketNameOf(s3)}/media`;
  const bucket = bucketStore(s3, 'media/');
  // The server starts on the local store; the S3_* settings are there for the store a migration names.
  const env: Record<string, string> = { ...(await isolatedEnv(t, 'migrate')), ...s3, MEDIA_STORE: 'local' };
  let server: ChildServer | undefined;
  t.teardown(async () => {
    await server?.stop();
    bucket.close();
  });
  const images = path.join(env.DATA_DIR, 'images');

  const auth = { 'X-Access-Key': await cliUser(env, 'migrator', 0x2 | 0x4) };
  mark('started');
  server = await startChild(env);
  const url = server.url;

  /** image name → sha256 of the bytes uploaded */
  const posts = new Map<string, string>();
  let seed = 7_000;
  const upload = async () => {
    const bytes = await randomImage(++seed, 240, 180, 'jpeg');
    const res = await fetch(`${url}/api/post/`, {
      method: 'POST',
      headers: auth,
      body: uploadForm({ image: bytes, type: 'image/jpeg' }),
    });
    if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
    const post = (await res.json()) as { imageURL: string };
    posts.set(post.imageURL.slice(post.imageURL.lastIndexOf('/') + 1), sha256(bytes));
  };
  // Meanwhile, the refusals: a clear message and exit code, nothing changed.
  const refusals = Promise.all([
    cli(['media', 'migrate', '--to', 'ftp://example.org/images'], env),
    cli(['media', 'migrate', '--to', 'local'], env),
    cli(['media', 'migrate', '--to', 's3://no-such-bucket-imgpost/x'], env),
  ]);
  await Promise.all(Array.from({ length: 12 }, upload));
  mark('uploaded');
  const initial = [...posts.keys()];
  const [unknown, same, noBucket] = await refusals;
  mark('refusals');
  t.is(unknown.code, 2, unknown.stderr);
  t.regex(unknown.stderr, /--to "ftp:\/\/example\.org\/images": expected "local" or s3:\/\/bucket\/prefix/);
  t.is(same.code, 1, same.stderr);
  t.regex(same.stderr, /the images are already in local: nothing to migrate/);
  t.is(noBucket.code, 1, noBucket.stderr);
  t.regex(noBucket.stderr, /s3:\/\/no-such-bucket-imgpost\/x\/ cannot be used: .*misconfigured/);
  // Every thumbnail made (background work), so the copy has a known set of objects.
  const localCount = () =>
    fs.readdirSync(images, { recursive: true }).filter((f) => !fs.statSync(path.join(images, String(f))).isDirectory())
      .length;
  await until('the thumbnails', () => localCount() === initial.length * 3);
  const localBytes = fs
    .readdirSync(images, { recursive: true })
    .reduce((n, f) => n + fs.statSync(path.join(images, String(f))).size, 0);

  mark('thumbnails');
  // Traffic all along: GET /media of every post known so far (bytes checked), and an upload every 200 ms.
  const errors: string[] = [];
  let gets = 0;
  let uploadsDuring = 0;
  let traffic = true;
  const reader = (async () => {
    while (traffic) {
      const names = [...posts.keys()];
      const name = names[Math.floor(Math.random() * names.length)];
      const res = await fetch(`${url}/media/${name}`).catch((err) => ({ status: -1, err }) as const);
      if (!('arrayBuffer' in res) || res.status !== 200) errors.push(`GET ${name}: ${res.status}`);
      else if (sha256(Buffer.from(await res.arrayBuffer())) !== posts.get(name))
        errors.push(`GET ${name}: other bytes`);
      gets++;
    }
  })();
  const uploader = (async () => {
    while (traffic) {
      await upload().then(
        () => uploadsDuring++,
        (err) => errors.push(String(err)),
      );
      await new Promise((r) => setTimeout(r, 200));
    }
  })();

  // 1. Paced to take ~5 s, killed with SIGKILL once more than a page of posts (4 with --parallel 1) is in the bucket,
  //    so the resume point has moved.
  const rate = Math.max(1024, Math.ceil(localBytes / 5));
  const first = spawn(
    process.execPath,
    [CLI_JS, 'media', 'migrate', '--to', target, '--max-rate', String(rate), '--parallel', '1'],
    { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let firstErr = '';
  first.stderr!.on('data', (c: Buffer) => (firstErr += c.toString()));
  const firstExit = new Promise<number | null>((resolve) => first.once('exit', (code) => resolve(code)));
  const copiedOfInitial = async () => {
    let n = 0;
    for await (const o of bucket.list(''))
      if (initial.some((name) => o.key.startsWith(shardOf(name).slice(0, 39)))) n++;
    return n;
  };
  await until('more than a page of posts copied', async () => {
    if (first.exitCode !== null)
      throw new Error(`the migration ended (${first.exitCode}) before it was killed: ${firstErr}`);
    return (await copiedOfInitial()) >= 4 * 3 + 2;
  });
  mark('kill');
  first.kill('SIGKILL');
  t.is(await firstExit, null, 'killed, not finished');
  const copiedBeforeKill = await copiedOfInitial();
  t.true(copiedBeforeKill < initial.length * 3, `${copiedBeforeKill} of ${initial.length * 3} copied when killed`);
  // A fresh start: the refusals above recorded nothing (else this would resume, or be refused).
  t.regex(firstErr, /switched: the server now writes to s3:/);
  // The server keeps going between the runs: uploads land in the bucket, reads fall back to local files.
  const atKill = uploadsDuring;
  await until('an upload after the kill', () => uploadsDuring > atKill);

  // 2. Run again: it resumes and finishes.
  const second = await cli(['media', 'migrate', '--to', target, '--json'], env);
  t.is(second.code, 0, second.stderr);
  const result = JSON.parse(second.stdout);
  t.like(result, { from: 'local', to: `${target}/`, resumed: true, missingImages: [] });
  t.log(`second run: ${JSON.stringify(result)}`);
  t.true(
    result.startedAfterSeq > 0 && result.startedAfterSeq < result.uptoSeq,
    `resumed after post #${result.startedAfterSeq} of #${result.uptoSeq}`,
  );
  // Resumed after the posts already done; of the rest, what the killed run had put is checked, not put again.
  // (posts numbered up to the switch after the resume point, and uploads in flight at the switch)
  t.true(
    result.posts <= result.uptoSeq - result.startedAfterSeq + 3,
    `${result.posts} posts checked by the second run`,
  );
  t.true(result.copied > 0 && result.copied + result.alreadyThere <= result.posts * 3, JSON.stringify(result));
  mark('resumed');
  const atEnd = uploadsDuring;
  await until('an upload after the migration ended', () => uploadsDuring > atEnd);
  traffic = false;
  await Promise.all([reader, uploader]);
  t.deepEqual(errors, [], 'every GET /media answered with the right bytes, every upload accepted');
  t.true(gets > 20, `${gets} reads during the migration`);

  mark('traffic stopped');
  // Every image byte-identical in the bucket.
  let objects = await bucketObjects(bucket);
  for (const [name, sum] of posts) t.is(objects.get(shardOf(name)), sum, name);

  // Served from the bucket: the local files moved away, every image still answers with its bytes, and an upload lands
  // in the bucket.
  fs.renameSync(images, `${images}.old`);
  // A backup reads the recorded store too (MEDIA_STORE still says local, and the local files are gone).
  const backup = cli(['backup', destDir(t), '--json'], env);
  for (const [name, sum] of posts) {
    const res = await fetch(`${url}/media/${name}`);
    t.is(res.status, 200, name);
    t.is(sha256(Buffer.from(await res.arrayBuffer())), sum, name);
  }
  await upload();
  objects = await bucketObjects(bucket);
  for (const name of posts.keys()) t.true(objects.has(shardOf(name)), name);
  t.false(fs.existsSync(path.join(images, shardOf([...posts.keys()].at(-1)!))), 'the new upload is not a local file');
  const backedUp = await backup;
  t.is(backedUp.code, 0, backedUp.stderr);
  t.true(JSON.parse(backedUp.stdout).posts >= initial.length, backedUp.stdout);

  mark('served from bucket');
  // 3. Back to local, once: every image a local file with its bytes, served with the bucket emptied.
  const back = await cli(['media', 'migrate', '--to', 'local', '--json'], env);
  t.is(back.code, 0, back.stderr);
  const backResult = JSON.parse(back.stdout);
  t.log(`back: ${back.stdout.trim()}`);
  t.like(backResult, { from: `${target}/`, to: 'local', resumed: false, missingImages: [] });
  for (const [name, sum] of posts) t.is(sha256(fs.readFileSync(path.join(images, shardOf(name)))), sum, name);
  for (const key of objects.keys()) await bucket.delete(key);
  for (const [name, sum] of posts) {
    const res = await fetch(`${url}/media/${name}`);
    t.is(res.status, 200, name);
    t.is(sha256(Buffer.from(await res.arrayBuffer())), sum, name);
  }
  mark('back');
  // And a later start uses the recorded store, with a warning that MEDIA_STORE says otherwise.
  await server.stop();
  server = await startChild({ ...env, MEDIA_STORE: target });
  const first2 = [...posts.keys()][0];
  t.is((await fetch(`${server.url}/media/${first2}`)).status, 200);
  t.regex(server.output(), /using the media store local, recorded by imgpost media migrate/);
});
