import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { hammingDistance } from '../hashing/hamming.ts';
import type { Outbox } from '../outbox/outbox.ts';
import { findWithin } from '../search/similar/find-similar.ts';

/** Fewer than this many differing bits is a near-duplicate (spec §8). */
export const DUPLICATE_THRESHOLD = 4;

export interface NearMatch {
  postId: string;
  diff: number;
}

/**
 * Posts whose hash differs from `hash` by fewer than 4 bits, closest first: the similar-image
 * lookup at 3 bits (two segments within 1 bit), plus changes still waiting in the outbox, so a post is
 * never missed while the index catches up. Elasticsearch unreachable → 503.
 */
export async function findNearDuplicates(index: PostsIndex, outbox: Outbox, hash: string): Promise<NearMatch[]> {
  // Read the outbox first: a row is marked indexed only once searchable, so every post is either in
  // this snapshot or visible to the query below. Read afterwards, a post could slip between the two.
  const pending = outbox.pendingCreates();
  const found = new Map<string, number>();
  for (const m of await findWithin(index, hash, DUPLICATE_THRESHOLD - 1)) found.set(m.id, m.diff);
  for (const p of pending) {
    const diff = hammingDistance(hash, p.hash);
    if (diff < DUPLICATE_THRESHOLD) found.set(p.postId, diff);
  }
  return [...found].map(([postId, diff]) => ({ postId, diff })).sort((a, b) => a.diff - b.diff);
}
