/**
 * The local media store (src/media-store/local-store.ts) answers as the S3 store does
 * (test/media/store-contract.ts), in the layout of today's DATA_DIR/images.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { LocalMediaStore } from '../../src/media-store/local-store.ts';
import { mediaKey, type MediaStore } from '../../src/media-store/media-store.ts';
import { postId, storeContract } from './store-contract.ts';

const roots: string[] = [];
test.after.always(() => {
  for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
});
const fresh = async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-local-store-'));
  roots.push(root);
  return new LocalMediaStore(path.join(root, 'images'));
};

storeContract('local', fresh);

test("local: a key is the file ImageStore uses today, its locator the path pending_files holds; the ETag is GET /media's", async (t) => {
  const store = await fresh();
  const id = postId();
  const key = mediaKey(`${id}.jpg`);
  const put = await store.put(key, { buffer: Buffer.alloc(300) }, { contentType: 'image/jpeg' });
  const file = path.join(store.root, id.slice(-2), `${id}.jpg`);
  t.is(store.locator(key), file);
  t.true(fs.existsSync(file));
  t.is(put.etag, `"${id}-12c"`);
  t.is(store.location, `local:${store.root}`);
  const asStore: MediaStore = store;
  t.is(asStore.presignGet, undefined, 'no presigned URLs: direct uploads need an S3 store');
  t.is(asStore.presignPut, undefined);
});
