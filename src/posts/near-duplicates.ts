import { isConnectionError } from '../elasticsearch/client.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { AppError } from '../errors.ts';
import { hammingDistance, hashSegments } from '../hashing/hamming.ts';
import type { Outbox } from '../outbox/outbox.ts';

/** Fewer than this many differing bits is a near-duplicate (spec §8). */
export const DUPLICATE_THRESHOLD = 4;

export interface NearMatch {
  postId: string;
  diff: number;
}

/**
 * Posts whose hash differs from `hash` by fewer than 4 bits. Multi-index hashing: with 3 differing
 * bits spread over four 16-bit segments, at least one segment matches exactly, so an exact term
 * query on the four segment fields finds every candidate; the full hash gives the exact distance.
 * Changes still waiting in the outbox are checked too, so a post is never missed while the index
 * catches up. Elasticsearch unreachable → 503.
 */
export async function findNearDuplicates(index: PostsIndex, outbox: Outbox, hash: string): Promise<NearMatch[]> {
  const segments = hashSegments(hash);
  const found = new Map<string, number>();
  // Read the outbox first: a row is marked indexed only once searchable, so every post is either in
  // this snapshot or visible to the query below. Read afterwards, a post could slip between the two.
  const pending = outbox.pendingCreates();
  try {
    let searchAfter: unknown[] | undefined;
    for (;;) {
      const res = await index.client.search<{ hash: string }>({
        index: index.alias,
        size: 1000,
        _source: ['hash'],
        sort: [{ id: 'asc' }],
        search_after: searchAfter as never,
        query: { bool: { should: segments.map((s, i) => ({ term: { [`hash_s${i}`]: s } })), minimum_should_match: 1 } },
      });
      for (const hit of res.hits.hits) {
        const diff = hammingDistance(hash, hit._source!.hash);
        if (diff < DUPLICATE_THRESHOLD) found.set(hit._id!, diff);
      }
      if (res.hits.hits.length < 1000) break;
      searchAfter = res.hits.hits[res.hits.hits.length - 1].sort;
    }
  } catch (err) {
    if (isConnectionError(err)) throw new AppError('unavailable', 'search index unavailable; uploads are paused, try again shortly');
    throw err;
  }
  for (const p of pending) {
    const diff = hammingDistance(hash, p.hash);
    if (diff < DUPLICATE_THRESHOLD) found.set(p.postId, diff);
  }
  return [...found].map(([postId, diff]) => ({ postId, diff })).sort((a, b) => a.diff - b.diff);
}
