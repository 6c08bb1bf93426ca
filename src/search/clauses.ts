import { trigrams } from '../elasticsearch/post-document.ts';

/** Elasticsearch query fragments shared by both search endpoints. */
export type Clause = Record<string, unknown>;

/** Wildcard syntax: `*`, `?` and the escape character itself must be taken literally. */
export const escapeWildcard = (s: string): string => s.replace(/[\\*?]/g, (c) => `\\${c}`);

/**
 * At most this many trigram terms when trigrams only narrow the candidates (long needles, see
 * long-needles.ts): a subset is still correct there, and a 10,000-character needle must not exceed
 * the clause limit.
 */
const MAX_GRAMS = 48;

function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(items[Math.floor((i * items.length) / n)]);
  return out;
}

/** Term filters for (a sample of) the needle's distinct trigrams: every candidate holds them all. */
export const gramFilters = (lowered: string): Clause[] =>
  spread([...new Set(trigrams(lowered))], MAX_GRAMS).map((g) => ({ term: { text_grams: g } }));

/**
 * Longer needles are resolved beforehand (see long-needles.ts) rather than sent as one span query of
 * a term per character, which would run into Lucene's clause limit (a few thousand on a small heap).
 */
export const SPAN_MAX = 256;

/** Exact results of long needles, resolved before the query is built: lower-cased needle → post ids. */
export type NeedleMatches = ReadonlyMap<string, readonly string[]>;

export const isLongNeedle = (lowered: string): boolean =>
  lowered.length > SPAN_MAX && Array.from(lowered).length > SPAN_MAX;

/** index.max_terms_count is 65,536 per terms query; larger id sets are split. */
const TERMS_CHUNK = 50_000;

function idsClause(ids: readonly string[]): Clause {
  if (ids.length === 0) return { match_none: {} };
  const chunks: Clause[] = [];
  for (let i = 0; i < ids.length; i += TERMS_CHUNK) chunks.push({ terms: { id: ids.slice(i, i + TERMS_CHUNK) } });
  return chunks.length === 1 ? chunks[0] : { bool: { should: chunks, minimum_should_match: 1 } };
}

/**
 * Case-insensitive substring of the post text. Both sides are lower-cased by JavaScript's
 * toLowerCase, so they agree on every script.
 */
export function textContains(needle: string, resolved?: NeedleMatches): Clause {
  const lowered = needle.toLowerCase();
  if (lowered === '') return { match_all: {} };
  if (isLongNeedle(lowered)) {
    const ids = resolved?.get(lowered);
    if (!ids) throw new Error('a long text needle was not resolved before building the query');
    return idsClause(ids);
  }
  const grams = trigrams(lowered);
  // Shorter than a trigram: no term can stand for it, the lower-cased text's doc values decide.
  if (grams.length === 0) return { wildcard: { text_lc: { value: `*${escapeWildcard(lowered)}*` } } };
  // Three characters: one of the text's trigrams or not in it at all.
  if (grams.length === 1) return { term: { text_grams: grams[0] } };
  // Longer: the needle's trigrams at consecutive positions, i.e. its characters one after another.
  // Exact, and read from the positions of the rarest terms: against trigram filters confirmed by a
  // wildcard over every candidate's doc values it cut post search's p99 at 1M posts several-fold
  // (bench/notes/issue-16.md).
  return { span_near: { clauses: grams.map((g) => ({ span_term: { text_grams: g } })), slop: 0, in_order: true } };
}

/** A UUID has 36 characters: a longer needle cannot be inside one. */
const UUID_LENGTH = 36;

/** Case-insensitive substring of the post's UUID; `id_lc` is doc values only, so a wildcard scans it. */
export function idContains(needle: string): Clause {
  const lowered = needle.toLowerCase();
  if (lowered === '') return { match_all: {} };
  if (lowered.length > UUID_LENGTH) return { match_none: {} };
  return { wildcard: { id_lc: { value: `*${escapeWildcard(lowered)}*` } } };
}

export const not = (clause: Clause): Clause => ({ bool: { must_not: [clause] } });
/** Lucene indexes no term longer than this many UTF-8 bytes, and Elasticsearch refuses (400) to query one. */
const MAX_TERM_BYTES = 32_766;
export const term = (field: string, value: string | number): Clause =>
  // Such a value can equal no indexed term: match nothing rather than send a query that fails.
  typeof value === 'string' && Buffer.byteLength(value, 'utf8') > MAX_TERM_BYTES
    ? { match_none: {} }
    : { term: { [field]: value } };

/** All of the clauses (an empty list is every post). Filter context: no scoring, cacheable. */
export const allOf = (clauses: Clause[]): Clause =>
  clauses.length === 0 ? { match_all: {} } : { bool: { filter: clauses } };
