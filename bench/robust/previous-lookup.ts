/**
 * The robust lookup before condition 4 (commit 815e6c8), kept for bench/robust-lookup.ts to measure
 * before and after in one run: the same 32 clauses in filter context, every candidate returned,
 * sorted by `seq` in pages of 10,000, then the rule on their descriptors from SQLite. It has no cap
 * on candidates, so where the cap binds it may find a match the served lookup leaves out.
 */
import type { PostsIndex } from '../../src/elasticsearch/posts-index.ts';
import { MIN_QUALITY, type RobustMatch } from '../../src/hashing/robust/descriptor.ts';
import { decodeDescriptor } from '../../src/hashing/robust/format.ts';
import { querySegments } from '../../src/hashing/robust/index-terms.ts';
import { MIN_SHARED, robustMatch, SEGMENT_BITS, type Descriptor } from '../../src/hashing/robust/rule.ts';
import type { RobustDescriptors } from '../../src/kernel/robust-descriptors.ts';
import { byScore, type RobustHit } from '../../src/search/similar/robust-lookup.ts';

const PAGE = 10_000;

export async function previousFindRobust(postsIndex: PostsIndex, store: RobustDescriptors, query: Descriptor): Promise<RobustHit[]> {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const { inAny, inFull } = querySegments(query.hashes, SEGMENT_BITS);
  const should = [...inAny.map((t) => ({ term: { robust_any: t } })), ...inFull.filter((ts) => ts.length > 0).map((ts) => ({ terms: { robust_full: ts } }))];
  const seqs: number[] = [];
  let after: number[] | undefined;
  for (;;) {
    const res = await postsIndex.client.search({
      index: postsIndex.alias,
      query: { bool: { filter: [{ bool: { should, minimum_should_match: MIN_SHARED } }] } },
      size: PAGE,
      sort: [{ seq: 'asc' }],
      _source: false,
      stored_fields: ['_none_'],
      track_total_hits: false,
      ...(after ? { search_after: after } : {}),
    });
    for (const h of res.hits.hits) seqs.push(Number(h.sort![0]));
    if (res.hits.hits.length < PAGE) break;
    after = [seqs[seqs.length - 1]];
  }
  const matches = new Map<number, RobustMatch>();
  for (const [seq, robust] of store.ofSeqs(seqs)) {
    const d = decodeDescriptor(robust);
    const m = d && robustMatch(query, d);
    if (m) matches.set(seq, m);
  }
  return store
    .stored([...matches.keys()])
    .map((row) => ({ ...matches.get(row.seq)!, seq: row.seq, id: row.id, ext: row.ext, createdAt: row.createdAt }))
    .sort(byScore);
}
