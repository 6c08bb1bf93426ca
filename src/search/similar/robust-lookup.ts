/**
 * The robust lookup (decisions §16): every stored post that matches a descriptor under THE rule of
 * src/hashing/robust/rule.ts, found through the index and decided on the stored descriptors.
 *
 *  1. Candidates: the posts whose document shares at least MIN_SHARED segment terms with the query
 *     (in filter context, no scoring: a bool of 32 clauses with `minimum_should_match`, per segment
 *     the query's full-hash `term` in `robust_any` and the `terms` of its windows in `robust_full`:
 *     exactly condition 2 of the rule, counted as `sharedSegments` counts). All of them, paged over
 *     `seq`; only the number comes back (no _source, no _id). One clause per segment rather than
 *     one per distinct term (about 336): the same count at less cost (1M posts: p50 18.7 against
 *     22.5 ms, p99 81 against 90 ms with the smaller pages and reads below; bench/RESULTS.md).
 *  2. Their descriptors from SQLite in one statement (number and descriptor only; the post's id,
 *     extension and date are read for the matches alone), and the rule itself (`robustMatch`) on each.
 * So the answer is exactly what a scan of SQLite under the same rule returns (scanRobust below; the
 * differential test compares them), as long as the index holds every stored descriptor's terms.
 */
import type { PostsIndex } from '../../elasticsearch/posts-index.ts';
import type { RobustMatch } from '../../hashing/robust/descriptor.ts';
import { decodeDescriptor } from '../../hashing/robust/format.ts';
import { querySegments } from '../../hashing/robust/index-terms.ts';
import { MIN_SHARED, robustMatch, SEGMENT_BITS, type Descriptor } from '../../hashing/robust/rule.ts';
import { MIN_QUALITY } from '../../hashing/robust/descriptor.ts';
import type { RobustDescriptors, StoredDescriptor } from '../../kernel/robust-descriptors.ts';
import { translateEsError } from '../engine.ts';

export interface RobustHit extends RobustMatch {
  seq: number;
  id: string;
  ext: string;
  createdAt: string;
}

/** Candidates per page: the index's max_result_window (es-mappings/posts.json), so most lookups take one request. */
const PAGE = 10_000;

/** best first: highest score, then newest, then by id */
export const byScore = (a: RobustHit, b: RobustHit): number =>
  b.score - a.score || (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** The query clauses: per segment, the query's full-hash term in `robust_any` and its windows' terms in `robust_full`. */
export function candidateQuery(query: Descriptor): Record<string, unknown> {
  const { inAny, inFull } = querySegments(query.hashes, SEGMENT_BITS);
  const should = [...inAny.map((t) => ({ term: { robust_any: t } })), ...inFull.filter((ts) => ts.length > 0).map((ts) => ({ terms: { robust_full: ts } }))];
  return { bool: { filter: [{ bool: { should, minimum_should_match: MIN_SHARED } }] } };
}

/** Post numbers of every candidate (condition 2 of the rule), ascending. */
export async function candidateSeqs(postsIndex: PostsIndex, query: Descriptor): Promise<number[]> {
  const seqs: number[] = [];
  let after: number[] | undefined;
  try {
    for (;;) {
      const res = await postsIndex.client.search({
        index: postsIndex.alias,
        query: candidateQuery(query),
        size: PAGE,
        sort: [{ seq: 'asc' }],
        _source: false,
        stored_fields: ['_none_'],
        track_total_hits: false,
        ...(after ? { search_after: after } : {}),
      });
      const hits = res.hits.hits;
      for (const h of hits) seqs.push(Number(h.sort![0]));
      if (hits.length < PAGE) return seqs;
      after = [seqs[seqs.length - 1]];
    }
  } catch (err) {
    return translateEsError(err);
  }
}

/** The rule on one stored descriptor (null: no match, or a descriptor that does not decode). */
function ruleOn(query: Descriptor, robust: Buffer): RobustMatch | null {
  const stored = decodeDescriptor(robust);
  return stored && robustMatch(query, stored);
}

const hitOf = (m: RobustMatch, row: StoredDescriptor): RobustHit => ({ ...m, seq: row.seq, id: row.id, ext: row.ext, createdAt: row.createdAt });

/** Every robust match of `query` among the indexed posts, best first. */
export async function findRobust(postsIndex: PostsIndex, store: RobustDescriptors, query: Descriptor): Promise<RobustHit[]> {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const seqs = await candidateSeqs(postsIndex, query);
  // The rule on every candidate's descriptor, then the posts' details for the few that match.
  const matches = new Map<number, RobustMatch>();
  for (const [seq, robust] of store.ofSeqs(seqs)) {
    const m = ruleOn(query, robust);
    if (m) matches.set(seq, m);
  }
  return store
    .stored([...matches.keys()])
    .map((row) => hitOf(matches.get(row.seq)!, row))
    .sort(byScore);
}

/** The same rule over every stored descriptor (a linear scan): the reference the lookup is checked and measured against. */
export function scanRobust(store: RobustDescriptors, query: Descriptor): RobustHit[] {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const out: RobustHit[] = [];
  for (const row of store.all()) {
    const m = ruleOn(query, row.robust);
    if (m) out.push(hitOf(m, row));
  }
  return out.sort(byScore);
}
