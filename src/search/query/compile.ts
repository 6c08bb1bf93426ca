import {
  allOf,
  escapeWildcard,
  idContains,
  not,
  term,
  textContains,
  type Clause,
  type NeedleMatches,
} from '../clauses.ts';
import { exactWeight, textMatchClause } from '../image-search/text-match.ts';
import type { Bounds, Query } from './model.ts';

/**
 * The one place a query becomes Elasticsearch (docs/decisions.md §20). Filter context throughout
 * (no scoring, cacheable) except the top level's `textMatch` nodes, which score (§7, §11).
 * `resolved`: the exact matches of long substring needles (long-needles.ts).
 */
export function compileQuery(q: Query, resolved?: NeedleMatches): Clause {
  const top = q.kind === 'and' ? q.of : [q];
  const matches = top.filter((c): c is Extract<Query, { kind: 'textMatch' }> => c.kind === 'textMatch');
  const filters = top.filter((c) => c.kind !== 'textMatch').map((c) => clause(c, resolved));
  if (matches.length === 0) return allOf(filters);
  // Analysed words never outnumber code points: a bound on the words of all textMatch values together.
  const weight = exactWeight(matches.reduce((n, c) => n + Array.from(c.value).length, 0));
  return { bool: { must: matches.map((c) => textMatchClause(c.value, weight)), filter: filters } };
}

/** Substring needles the query holds (long ones are resolved before compiling). */
export const needlesOf = (q: Query): string[] => {
  const out: string[] = [];
  const walk = (n: Query): void => {
    if (n.kind === 'textContains') out.push(n.value);
    else if (n.kind === 'and' || n.kind === 'or') n.of.forEach(walk);
    else if (n.kind === 'not') walk(n.of);
  };
  walk(q);
  return out;
};

const range = (field: string, b: Bounds, dates: boolean): Clause => ({
  range: {
    [field]: {
      ...(b.gte !== undefined ? { gte: b.gte } : {}),
      ...(b.lt !== undefined ? { lt: b.lt } : {}),
      ...(dates ? { format: 'epoch_millis' } : {}),
    },
  },
});

const anyOf = (clauses: Clause[]): Clause =>
  clauses.length === 0
    ? { match_none: {} }
    : clauses.length === 1
      ? clauses[0]
      : { bool: { should: clauses, minimum_should_match: 1 } };

function clause(q: Query, resolved?: NeedleMatches): Clause {
  switch (q.kind) {
    case 'all':
      return { match_all: {} };
    case 'none':
      return { match_none: {} };
    case 'and':
      return allOf(q.of.map((c) => clause(c, resolved)));
    case 'or':
      return anyOf(q.of.map((c) => clause(c, resolved)));
    case 'not':
      return not(clause(q.of, resolved));
    case 'tag':
      return term('tags', q.name);
    case 'tagPrefix':
      throw new Error('a tag prefix was not resolved before compiling');
    case 'textContains':
      return textContains(q.value, resolved);
    case 'textMatch':
      return textMatchClause(q.value, 1);
    case 'idContains':
      return idContains(q.value);
    case 'rating':
      return q.values.length === 1 ? term('rating', q.values[0]) : { terms: { rating: [...new Set(q.values)] } };
    case 'range': {
      // Dates are epoch milliseconds; documents indexed before a field existed have none and never match,
      // except for the score, which counts as 0 there (docs/decisions.md §18).
      const clause = range(q.field, q.bounds, q.field === 'created_at' || q.field === 'updated_at');
      const zeroMeets =
        (q.bounds.gte === undefined || q.bounds.gte <= 0) && (q.bounds.lt === undefined || q.bounds.lt > 0);
      return q.field === 'score' && zeroMeets ? anyOf([clause, not({ exists: { field: 'score' } })]) : clause;
    }
    case 'uploader': {
      // Usernames are case-insensitive (SQLite's NOCASE), hence the lower-cased copy in the index.
      const byName = term('uploader_name_lc', q.name.toLowerCase());
      return q.userId === undefined ? byName : anyOf([byName, term('uploader_id', q.userId)]);
    }
    case 'favoritedBy':
      // No such user: an id no account has (ids start at 1), so nothing matches.
      return term('favorited_by', q.userId ?? 0);
    case 'commentedBy':
      return term('commented_by', q.userId ?? 0);
    case 'md5':
      throw new Error('an md5 term was not resolved before compiling');
    case 'seqs':
      return q.seqs.length === 0 ? { match_none: {} } : { terms: { seq: q.seqs } };
    case 'pool':
      return term('pool_ids', q.poolId);
    case 'parent':
      return q.seq === 'none' ? not({ exists: { field: 'parent' } }) : term('parent', q.seq);
    case 'sourceContains':
      // Both sides lower-cased by JavaScript, as textContains does; `source_lc` is a keyword.
      return q.value === ''
        ? { match_all: {} }
        : { wildcard: { source_lc: { value: `*${escapeWildcard(q.value.toLowerCase())}*` } } };
    case 'originSite':
      return term('origin_sites', q.value.trim().toLowerCase());
    case 'untagged':
      return term('tag_count', 0);
    case 'disowned':
      return not({ exists: { field: 'uploader_id' } });
    // docs/decisions.md §21: a document indexed before these fields existed is a still image without sound
    case 'mediaKind': {
      const kinds = [...new Set(q.values)];
      const clause: Clause = { terms: { media_kind: kinds } };
      return kinds.includes('image') ? anyOf([clause, not({ exists: { field: 'media_kind' } })]) : clause;
    }
    case 'fileExt':
      return { terms: { file_ext: [...new Set(q.values)] } };
    case 'hasAudio':
      return q.value ? { term: { has_audio: true } } : not({ term: { has_audio: true } });
    case 'hasNotes':
      return { range: { notes: { gte: 1 } } };
  }
}
