/**
 * The robust lookup as the first integration served it (commit 07940b4), kept for bench/robust-lookup.ts
 * to measure before and after in one run: one `term` clause per distinct query term (about 336),
 * pages of 5,000 over `seq`, every candidate's full row read from SQLite, the rule's shared-term
 * test before the distance. Same candidates and answer as src/search/similar/robust-lookup.ts.
 */
import type { PostsIndex } from '../../src/elasticsearch/posts-index.ts';
import { matchDescriptors, MIN_QUALITY } from '../../src/hashing/robust/descriptor.ts';
import { decodeDescriptor } from '../../src/hashing/robust/format.ts';
import { queryTerms } from '../../src/hashing/robust/index-terms.ts';
import { MIN_SHARED, SEGMENT_BITS, sharesSegments, THRESHOLD, type Descriptor } from '../../src/hashing/robust/rule.ts';
import type { RobustDescriptors } from '../../src/kernel/robust-descriptors.ts';
import { byScore, type RobustHit } from '../../src/search/similar/robust-lookup.ts';

const PAGE = 5000;

export async function previousFindRobust(postsIndex: PostsIndex, store: RobustDescriptors, query: Descriptor): Promise<RobustHit[]> {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const { inAny, inFull } = queryTerms(query.hashes, SEGMENT_BITS);
  const should = [...inAny.map((t) => ({ term: { robust_any: t } })), ...inFull.map((t) => ({ term: { robust_full: t } }))];
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
  const out: RobustHit[] = [];
  for (const row of store.stored(seqs)) {
    const d = decodeDescriptor(row.robust);
    if (!d || d.quality < MIN_QUALITY || d.hashes.length === 0 || !sharesSegments(query.hashes, d.hashes)) continue;
    const m = matchDescriptors(query, d, THRESHOLD);
    if (m) out.push({ ...m, seq: row.seq, id: row.id, ext: row.ext, createdAt: row.createdAt });
  }
  return out.sort(byScore);
}
