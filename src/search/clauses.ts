import { trigrams } from '../elasticsearch/post-document.ts';

/** Elasticsearch query fragments shared by both search endpoints. */
export type Clause = Record<string, unknown>;

/** Wildcard syntax: `*`, `?` and the escape character itself must be taken literally. */
export const escapeWildcard = (s: string): string => s.replace(/[\\*?]/g, (c) => `\\${c}`);

/**
 * At most this many trigram terms per needle. They only narrow the candidates (the wildcard decides),
 * so a subset is still correct, and a 10,000-character needle must not exceed the clause limit.
 */
const MAX_GRAMS = 48;

function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor((i * items.length) / n)]);
  return out;
}

/**
 * Case-insensitive substring of the post text. The bundled Elasticsearch has no n-gram tokenizer:
 * the JS-computed trigrams in `text_grams` cut the candidates down (every trigram of the needle must
 * be there), then a wildcard over the lower-cased `text_lc` doc values confirms the exact substring.
 * Both sides are lower-cased by JavaScript's toLowerCase, so they agree on every script.
 */
export function textContains(needle: string): Clause {
  const lowered = needle.toLowerCase();
  if (lowered === '') return { match_all: {} };
  const wildcard: Clause = { wildcard: { text_lc: { value: `*${escapeWildcard(lowered)}*` } } };
  const grams = spread(trigrams(lowered), MAX_GRAMS);
  if (grams.length === 0) return wildcard;
  return { bool: { filter: [...grams.map((g) => ({ term: { text_grams: g } })), wildcard] } };
}

/** Case-insensitive substring of the post's UUID; `id_lc` is doc values only, so a wildcard scans it. */
export function idContains(needle: string): Clause {
  const lowered = needle.toLowerCase();
  if (lowered === '') return { match_all: {} };
  return { wildcard: { id_lc: { value: `*${escapeWildcard(lowered)}*` } } };
}

export const not = (clause: Clause): Clause => ({ bool: { must_not: [clause] } });
export const term = (field: string, value: string | number): Clause => ({ term: { [field]: value } });

/** All of the clauses (an empty list is every post). Filter context: no scoring, cacheable. */
export const allOf = (clauses: Clause[]): Clause => (clauses.length === 0 ? { match_all: {} } : { bool: { filter: clauses } });
