import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import { hammingDistance } from '../hashing/hamming.ts';
import type { Outbox } from '../kernel/outbox.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import { findWithin } from '../search/similar/find-similar.ts';

/** Fewer than this many differing bits is a near-duplicate (docs/decisions.md §4). */
export const DUPLICATE_THRESHOLD = 4;

export interface NearMatch {
  postId: string;
  diff: number;
}

/**
 * The near-duplicate check in two steps, so that concurrent uploads do not queue behind each other's
 * index round trip (under a mixed load that wait, held under the upload lock, was most of an
 * upload's latency: bench/notes/issue-16.md):
 *  1. `lookUp`, outside any lock: the posts up to the newest one at its start, `seenSeq`;
 *  2. `since`, under the upload lock just before the insert: the posts committed after `seenSeq`
 *     (concurrent uploads, an import beside the server), read from SQLite.
 * Together they see every post: post numbers only grow (AUTOINCREMENT), and a post numbered up to
 * `seenSeq` had committed when it was read, so step 1 finds it in the index or the outbox.
 */
export interface NearDuplicateLookup {
  matches: NearMatch[];
  seenSeq: number;
}

/**
 * Posts whose hash differs from `hash` by fewer than 4 bits, closest first: the similar-image
 * lookup at 3 bits (two segments within 1 bit), plus changes still waiting in the outbox, so a post is
 * never missed while the index catches up. Elasticsearch unreachable → 503.
 */
export async function lookUp(
  index: PostsIndex,
  outbox: Outbox,
  posts: PostRepository,
  hash: string,
): Promise<NearDuplicateLookup> {
  // In this order: the newest post number, then the outbox, then the index. A row is marked indexed
  // only once searchable, so every post up to seenSeq is in the outbox snapshot or visible to the
  // query; read the other way round, a post could slip between the two.
  const seenSeq = posts.lastSeq();
  const pending = outbox.pendingCreates();
  const found = new Map<string, number>();
  for (const m of await findWithin(index, hash, DUPLICATE_THRESHOLD - 1)) found.set(m.id, m.diff);
  return { matches: withNear(found, hash, pending), seenSeq };
}

/** `lookUp`'s matches plus the near-duplicates among posts committed since it began. */
export function since(lookup: NearDuplicateLookup, posts: PostRepository, hash: string): NearMatch[] {
  return withNear(new Map(lookup.matches.map((m) => [m.postId, m.diff])), hash, posts.hashesAfter(lookup.seenSeq));
}

/** `found` plus the near-duplicates among `candidates` (posts the index cannot show yet), closest first. */
function withNear(
  found: Map<string, number>,
  hash: string,
  candidates: { postId: string; hash: string }[],
): NearMatch[] {
  for (const c of candidates) {
    const diff = hammingDistance(hash, c.hash);
    if (diff < DUPLICATE_THRESHOLD) found.set(c.postId, diff);
  }
  return [...found].map(([postId, diff]) => ({ postId, diff })).sort((a, b) => a.diff - b.diff);
}
