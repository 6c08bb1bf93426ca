import type { Clause } from '../clauses.ts';

/** A textMatch value's length bound: each analysed word becomes a clause, and Elasticsearch limits clauses. */
export const MAX_MATCH_LENGTH = 1024;

/**
 * `textMatch` (docs/decisions.md §7, §11): every analysed word of the value must match a word of the text,
 * exactly or with typos: one edit for words of 5 to 8 characters, two from 9 (Elasticsearch's
 * `AUTO:5,9`; an edit is an insertion, deletion, substitution or transposition), none below 5.
 * The last word also matches as a prefix (search as you type).
 *
 * Matching is constant-scored (`constant_score` rewrite: every term within the distance counts, with
 * no cap on expansions, so the match is exact); the ranking comes from two `should` clauses:
 * - `text.words` (boolean similarity: 1 per query word found exactly) times `exactWeight`, so a
 *   post with more exactly matched words always ranks above one with fewer (exact above typo);
 * - BM25 on `text` for the exactly matched words, which orders posts within the same count.
 */
const FUZZINESS = 'AUTO:5,9';

/**
 * Above everything else a match can score, per exactly matched word. Per analysed word the rest is
 * at most 2 (the constant matching clauses) plus BM25, whose idf is below ln(1 + N) < 21 for any
 * N up to 10^9 and whose term-frequency part is below k1 + 1 = 2.2: under 50 in all. `wordBound`
 * bounds the number of analysed words in every textMatch condition of the request together.
 */
export const exactWeight = (wordBound: number): number => 50 * Math.max(1, wordBound);

export function textMatchClause(value: string, weight: number): Clause {
  const fuzzy = { query: value, operator: 'and', fuzziness: FUZZINESS, fuzzy_rewrite: 'constant_score' };
  return {
    bool: {
      must: [
        {
          bool: {
            should: [{ match: { text: fuzzy } }, { match_bool_prefix: { text: fuzzy } }],
            minimum_should_match: 1,
          },
        },
      ],
      should: [{ match: { text: { query: value } } }, { match: { 'text.words': { query: value, boost: weight } } }],
    },
  };
}
