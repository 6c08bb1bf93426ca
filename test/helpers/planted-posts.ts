import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import type { PostRecord } from '../../src/kernel/post-record.ts';
import type { NewPost } from '../../src/kernel/post-repository.ts';
import type { Services } from '../../src/roles/server.ts';
import type { Random } from '../../tools/seed/random.ts';
import { uuidV7 } from '../../tools/seed/seed.ts';

/**
 * Posts a test plants straight into SQLite and the index, past the upload path: for texts, hashes
 * and tags no image would give. Search tests then query them like any other post.
 */

/**
 * A planted post's row: a 1×1 PNG with no uploader and no tags unless `fields` say otherwise, created
 * at `at` (ms). Its UUIDv7 is drawn from `rnd`, then (unless given) its hash: in that order, so a seed
 * plants the same posts every run.
 */
export function plantedRow(rnd: Random, at: number, fields: Partial<Omit<NewPost, 'id' | 'createdAt'>> = {}): NewPost {
  const id = uuidV7(at, rnd);
  return {
    id,
    text: '',
    rating: 'none',
    ext: 'png',
    mime: 'image/png',
    width: 1,
    height: 1,
    uploaderId: null,
    createdAt: new Date(at).toISOString(),
    tags: [],
    ...fields,
    hash: fields.hash ?? rnd.bits64(),
  };
}

/** Inserts the rows in one transaction, then indexes their records (refreshed); returns the records in order. */
export async function plantPosts(
  services: Pick<Services, 'db' | 'postRepository' | 'postsIndex'>,
  rows: readonly NewPost[],
): Promise<PostRecord[]> {
  const { db, postRepository, postsIndex } = services;
  const planted = db.transaction(() => rows.map((row) => postRepository.getBySeq(postRepository.insert(row))!))();
  await postsIndex.apply(
    planted.map((p) => ({ postId: p.id, version: p.version, doc: toPostDocument(p) })),
    { refresh: true },
  );
  return planted;
}
