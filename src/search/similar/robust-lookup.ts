/**
 * The robust lookup (docs/decisions.md §16): every stored post that matches a descriptor under THE rule of
 * src/robust/rule.ts, found through the index and decided on the stored descriptors.
 *
 *  1. Candidates: the posts whose document shares at least MIN_SHARED terms with the query
 *     (a bool of 32 clauses and one per counted cell, at least MIN_SHARED of them by `min_score`, per segment the
 *     `terms` of the query's full-hash value and its neighbours within PROBE_RADIUS bits in `robust_any`, and of its
 *     windows' values and their neighbours in `robust_full`, each scoring 1: the score is the
 *     shared-term count exactly as `sharedTerms` counts it, condition 2), the MAX_CANDIDATES with
 *     the highest score, then the lowest post number (condition 4), in one request; only the sort
 *     values come back (no _source, no _id, `filter_path`). The cap replaced paging over every
 *     candidate: common segment values gave a few lookups many thousands of them at 1M posts, and
 *     building and sending those hits was the lookup's p99 (bench/notes/robust.md, second and third passes).
 *  2. Their descriptors from SQLite in one statement (number and descriptor only; the post's id,
 *     extension and date are read for the matches alone), and the rule itself (`robustMatch`) on each.
 * So the answer is exactly what a scan of SQLite under the same rule returns (scanRobust below; the
 * differential test compares them), as long as the index holds every stored descriptor's terms.
 */
import type { PostsIndex } from '../../elasticsearch/posts-index.ts';
import type { RobustMatch } from '../../robust/descriptor.ts';
import { decodeDescriptor } from '../../robust/format.ts';
import { cellTerms } from '../../robust/cells.ts';
import { querySegments } from '../../robust/index-terms.ts';
import {
  byShared,
  INDEX_CONDITION,
  MAX_CANDIDATES,
  robustMatch,
  THRESHOLD,
  SEGMENT_BITS,
  sharedTerms,
  type Descriptor,
  type IndexCondition,
} from '../../robust/rule.ts';
import { MIN_QUALITY } from '../../robust/descriptor.ts';
import type { RobustDescriptors, StoredDescriptor } from '../../robust/descriptor-table.ts';
import { translateEsError } from '../engine.ts';

export interface RobustHit extends RobustMatch {
  seq: number;
  id: string;
  ext: string;
  createdAt: string;
}

/** best first: highest score, then newest, then by id */
export const byScore = (a: RobustHit, b: RobustHit): number =>
  b.score - a.score ||
  (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0) ||
  (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The query: per segment, the query's full-hash value and its neighbours within the probe radius in
 * `robust_any`, and its windows' values and their neighbours in `robust_full`, each clause scoring
 * exactly 1 (constant_score), so a candidate's score is its shared-segment count (`sharedSegments`),
 * an integer a float sums exactly.
 *
 * Any one clause suffices here; the request drops the documents scoring below `condition.needed`
 * (`min_score`, candidateSeqs). The same documents in the same order as `minimum_should_match:
 * needed`, since the score is the clause count, but Lucene scores a plain disjunction in bulk and a
 * minimum-should-match one document at a time, several times slower at 1M posts
 * (bench/notes/robust.md, fifth pass).
 */
export function candidateQuery(
  query: Descriptor,
  condition: IndexCondition = INDEX_CONDITION,
): Record<string, unknown> {
  const { inAny, inFull } = querySegments(query.hashes, SEGMENT_BITS, condition.radius);
  const one = (filter: unknown) => ({ constant_score: { filter, boost: 1 } });
  const should = [
    ...inAny.map((ts) => one({ terms: { robust_any: ts } })),
    ...inFull.filter((ts) => ts.length > 0).map((ts) => one({ terms: { robust_full: ts } })),
    // one clause per counted cell: its four segment values, exact (sharedCells)
    ...(query.cells ? cellTerms(query.cells) : []).map((ts) => one({ terms: { robust_cell: ts } })),
  ];
  return { bool: { should, minimum_should_match: 1 } };
}

/**
 * The candidates' request (conditions 2 and 4 of the rule): the `cap` posts sharing the most terms,
 * then the lowest numbers, in `byShared` order; only the sort values come back (`filter_path`:
 * building and sending the hits, not matching the terms, was the heavy part).
 */
export function candidateRequest(index: string, query: Descriptor, cap = MAX_CANDIDATES, condition = INDEX_CONDITION) {
  return {
    index,
    query: candidateQuery(query, condition),
    // condition 2: at least `needed` clauses (each scores 1; see candidateQuery)
    min_score: condition.needed,
    size: cap,
    sort: [{ _score: { order: 'desc' as const } }, { seq: { order: 'asc' as const } }],
    _source: false,
    stored_fields: ['_none_'],
    track_total_hits: false,
    filter_path: ['hits.hits.sort'],
  };
}

/** Post numbers of the candidates, in `byShared` order, in one request (candidateRequest). */
export async function candidateSeqs(
  postsIndex: PostsIndex,
  query: Descriptor,
  cap = MAX_CANDIDATES,
  condition = INDEX_CONDITION,
): Promise<number[]> {
  try {
    const res = await postsIndex.client.search(candidateRequest(postsIndex.alias, query, cap, condition));
    return (res.hits?.hits ?? []).map((h) => Number(h.sort![1]));
  } catch (err) {
    return translateEsError(err);
  }
}

/** The rule on one stored descriptor (null: no match, or a descriptor that does not decode). */
function ruleOn(query: Descriptor, robust: Buffer, condition: IndexCondition): RobustMatch | null {
  const stored = decodeDescriptor(robust);
  return stored && robustMatch(query, stored, THRESHOLD, condition);
}

const hitOf = (m: RobustMatch, row: StoredDescriptor): RobustHit => ({
  ...m,
  seq: row.seq,
  id: row.id,
  ext: row.ext,
  createdAt: row.createdAt,
});

/**
 * Every robust match of `query` among the indexed posts, best first (`cap`: condition 4's bound,
 * smaller only in tests; `condition`: condition 2's parameters, others than the rule's only in benches and tests).
 */
export async function findRobust(
  postsIndex: PostsIndex,
  store: RobustDescriptors,
  query: Descriptor,
  cap = MAX_CANDIDATES,
  condition = INDEX_CONDITION,
): Promise<RobustHit[]> {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const seqs = await candidateSeqs(postsIndex, query, cap, condition);
  // The rule on every candidate's descriptor, then the posts' details for the few that match.
  const matches = new Map<number, RobustMatch>();
  for (const [seq, robust] of store.ofSeqs(seqs)) {
    const m = ruleOn(query, robust, condition);
    if (m) matches.set(seq, m);
  }
  return store
    .stored([...matches.keys()])
    .map((row) => hitOf(matches.get(row.seq)!, row))
    .sort(byScore);
}

/**
 * The same rule over every stored descriptor (a linear scan): the reference the lookup is checked
 * and measured against. Condition 4 as the index applies it: the posts an index holds terms for
 * (quality ≥ MIN_QUALITY) sharing at least `condition.needed` segments, in `byShared` order, the first `cap`.
 */
export function scanRobust(
  store: RobustDescriptors,
  query: Descriptor,
  cap = MAX_CANDIDATES,
  condition = INDEX_CONDITION,
): RobustHit[] {
  if (query.quality < MIN_QUALITY || query.hashes.length === 0) return [];
  const candidates: { shared: number; seq: number; row: StoredDescriptor; stored: Descriptor }[] = [];
  for (const row of store.all()) {
    const stored = decodeDescriptor(row.robust);
    if (!stored || stored.quality < MIN_QUALITY || stored.hashes.length === 0) continue;
    const shared = sharedTerms(query, stored, condition.radius);
    if (shared >= condition.needed) candidates.push({ shared, seq: row.seq, row, stored });
  }
  const out: RobustHit[] = [];
  // The rule on the descriptor decoded above (ruleOn would decode it again).
  for (const { row, stored } of candidates.sort(byShared).slice(0, cap)) {
    const m = robustMatch(query, stored, THRESHOLD, condition);
    if (m) out.push(hitOf(m, row));
  }
  return out.sort(byScore);
}
