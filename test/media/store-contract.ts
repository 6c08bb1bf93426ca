/**
 * What every MediaStore does, whichever its kind (src/media-store/media-store.ts): registered by
 * s3-store.test.ts against a real S3Proxy and by local-store.test.ts against a directory, so both
 * implementations answer alike.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import test from 'ava';
import {
  ChecksumMismatchError,
  RangeNotSatisfiableError,
  mediaKey,
  type MediaStore,
} from '../../src/media-store/media-store.ts';

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
export async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of body) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
export async function keysOf(store: MediaStore, prefix: string, startAfter?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const o of store.list(prefix, { startAfter })) out.push(o.key);
  return out;
}
/** A post id of the shape the service issues (UUID v7), random in its tail. */
export const postId = () => `0190a1b2-c3d4-7e5f-8a9b-${randomBytes(6).toString('hex')}`;

/** Registers the contract's tests; `fresh` gives an empty store of the kind under test (closed by the test). */
export function storeContract(kind: string, fresh: () => Promise<MediaStore>): void {
  test(`${kind}: put from a buffer, then head, get whole and by range, delete`, async (t) => {
    const store = await fresh();
    t.teardown(() => store.close());
    const bytes = randomBytes(10_000);
    const key = mediaKey(`${postId()}.jpg`);
    t.regex(key, /^[0-9a-f]{2}\/[0-9a-f-]{36}\.jpg$/);

    const put = await store.put(key, { buffer: bytes }, { contentType: 'image/jpeg', sha256: sha256(bytes) });
    t.like(put, { key, size: bytes.length, sha256: sha256(bytes) });
    t.regex(put.etag, /^".+"$/);

    const head = await store.head(key);
    t.like(head, { key, size: bytes.length, etag: put.etag });
    t.true(head!.lastModified instanceof Date);

    const whole = await store.get(key);
    t.like(whole, { size: bytes.length, length: bytes.length, range: undefined, etag: put.etag });
    t.deepEqual(await readAll(whole!.body), bytes);

    const part = await store.get(key, { range: { start: 100, end: 199 } });
    t.like(part, { size: bytes.length, length: 100, range: { start: 100, end: 199 } });
    t.deepEqual(await readAll(part!.body), bytes.subarray(100, 200));

    const open = await store.get(key, { range: { start: 9_990 } });
    t.like(open, { length: 10, range: { start: 9_990, end: 9_999 } });
    t.deepEqual(await readAll(open!.body), bytes.subarray(9_990));

    // An end past the object is cut to its last byte, as HTTP ranges are.
    const cut = await store.get(key, { range: { start: 9_998, end: 20_000 } });
    t.like(cut, { length: 2, range: { start: 9_998, end: 9_999 } });
    t.deepEqual(await readAll(cut!.body), bytes.subarray(9_998));

    const suffix = await store.get(key, { range: { suffix: 16 } });
    t.like(suffix, { size: bytes.length, length: 16, range: { start: 9_984, end: 9_999 } });
    t.deepEqual(await readAll(suffix!.body), bytes.subarray(-16));

    const past = await t.throwsAsync(store.get(key, { range: { start: 10_000 } }), {
      instanceOf: RangeNotSatisfiableError,
    });
    t.is(past!.size, bytes.length);

    // A second put under the key replaces the object whole.
    const again = Buffer.from('replaced');
    await store.put(key, { buffer: again }, { contentType: 'image/jpeg' });
    t.deepEqual(await readAll((await store.get(key))!.body), again);

    await store.delete(key);
    t.is(await store.head(key), undefined);
    t.is(await store.get(key), undefined);
    t.is(await store.get(key, { range: { start: 0, end: 1 } }), undefined);
    // Deleting what is gone succeeds: removals are retried after crashes.
    await t.notThrowsAsync(store.delete(key));
  });

  test(`${kind}: put from a file leaves the file and records its sha256; a wrong sha256 writes nothing`, async (t) => {
    const store = await fresh();
    t.teardown(() => store.close());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-store-file-'));
    t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const file = path.join(dir, 'upload');
    fs.writeFileSync(file, bytes);
    const key = mediaKey(`${postId()}.png`);

    const put = await store.put(key, { path: file }, { contentType: 'image/png' });
    t.is(put.sha256, sha256(bytes));
    t.true(fs.existsSync(file), 'the source file is left where it was');
    t.is(sha256(await readAll((await store.get(key))!.body)), sha256(bytes));
    t.is((await store.head(key))?.size, bytes.length);

    const other = mediaKey(`${postId()}.png`);
    const err = await t.throwsAsync(
      store.put(other, { path: file }, { contentType: 'image/png', sha256: sha256(Buffer.from('something else')) }),
      { instanceOf: ChecksumMismatchError },
    );
    t.is(err!.actual, sha256(bytes));
    t.is(await store.head(other), undefined);
    t.deepEqual(await keysOf(store, ''), [key], 'nothing else, temp files included, is listed');
  });

  test(`${kind}: list by prefix, in key order, with startAfter`, async (t) => {
    const store = await fresh();
    t.teardown(() => store.close());
    const keys = ['aa/1.jpg', 'aa/2.jpg', 'ab/3.jpg', 'b0/4.jpg', 'tmp/x'];
    await Promise.all(
      [...keys]
        .reverse()
        .map((k) => store.put(k, { buffer: Buffer.from(k) }, { contentType: 'application/octet-stream' })),
    );

    t.deepEqual(await keysOf(store, ''), keys);
    t.deepEqual(await keysOf(store, 'a'), ['aa/1.jpg', 'aa/2.jpg', 'ab/3.jpg']);
    t.deepEqual(await keysOf(store, 'aa/'), ['aa/1.jpg', 'aa/2.jpg']);
    t.deepEqual(await keysOf(store, 'aa/2'), ['aa/2.jpg']);
    t.deepEqual(await keysOf(store, '', 'aa/2.jpg'), ['ab/3.jpg', 'b0/4.jpg', 'tmp/x']);
    t.deepEqual(await keysOf(store, 'zz/'), []);
    const listed = [];
    for await (const o of store.list('b0/')) listed.push(o);
    t.like(listed, [{ key: 'b0/4.jpg', size: 8 }]);
    // Keys cannot climb out of the store.
    await t.throwsAsync(store.head('../x'), { message: /invalid media key/ });
    await t.throwsAsync(store.put('aa/../../x', { buffer: Buffer.from('x') }, { contentType: 'image/jpeg' }), {
      message: /invalid media key/,
    });
  });

  test(`${kind}: check passes on a working store`, async (t) => {
    const store = await fresh();
    t.teardown(() => store.close());
    await t.notThrowsAsync(store.check());
  });
}
