/**
 * Plain-JavaScript evaluation of both search endpoints over the SQLite records, written from the
 * docs/decisions.md §6/§7 alone (it shares no code with src/search), for differential tests.
 */
import type { PostRecord } from '../../src/kernel/post-record.ts';

export type RefSelector =
  | { type: 'text'; op: 'contains' | 'not_contains'; value: string }
  | { type: 'id'; op: 'contains'; value: string }
  | { type: 'tag'; op: 'include' | 'exclude'; value: string }
  | { type: 'rating'; value: string }
  | { type: 'createdAt' | 'updatedAt'; op: string; value: string }
  | { type: 'system'; op: 'untagged' | 'disowned' }
  | { type: 'hasNotes'; value: boolean };

export interface RefOrder {
  key: 'createdAt' | 'uploaderId' | 'id';
  direction?: 'asc' | 'desc';
}

function span(value: string): [number, number] {
  const start = Date.parse(value.length === 10 ? `${value}T00:00:00.000Z` : value);
  if (Number.isNaN(start)) throw new Error(`reference: bad date ${value}`);
  return [start, start + (value.length === 10 ? 86_400_000 : 1000)];
}

function dateHolds(iso: string, op: string, value: string): boolean {
  const t = Date.parse(iso);
  const [start, end] = span(value);
  switch (op) {
    case 'eq':
      return t >= start && t < end;
    case 'ne':
      return !(t >= start && t < end);
    case 'gt':
      return t >= end;
    case 'gte':
    case 'ge':
      return t >= start;
    case 'lt':
      return t < start;
    case 'lte':
    case 'le':
      return t < end;
    default:
      throw new Error(`reference: op ${op}`);
  }
}

export function selectorHolds(p: PostRecord, s: RefSelector): boolean {
  switch (s.type) {
    case 'text': {
      const has = p.text.toLowerCase().includes(s.value.toLowerCase());
      return s.op === 'contains' ? has : !has;
    }
    case 'id':
      return p.id.toLowerCase().includes(s.value.toLowerCase());
    case 'tag': {
      const has = p.tags.some((t) => t.name === s.value);
      return s.op === 'include' ? has : !has;
    }
    case 'rating':
      return p.rating === s.value;
    case 'createdAt':
      return dateHolds(p.createdAt, s.op, s.value);
    case 'updatedAt':
      return dateHolds(p.updatedAt, s.op, s.value);
    case 'system':
      return s.op === 'untagged' ? p.tags.length === 0 : p.uploaderId === null;
    // docs/decisions.md §23
    case 'hasNotes':
      return p.notes > 0 === s.value;
  }
}

const cmp = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0);

export function refPostSearch(posts: PostRecord[], body: { filter?: RefSelector[]; order?: RefOrder[] }): PostRecord[] {
  const matched = posts.filter((p) => (body.filter ?? []).every((s) => selectorHolds(p, s)));
  const order = [...(body.order ?? [{ key: 'id' as const }]), { key: 'id' as const, direction: 'asc' as const }];
  return matched.sort((a, b) => {
    for (const o of order) {
      const sign = o.direction === 'desc' ? -1 : 1;
      let c: number;
      if (o.key === 'uploaderId') {
        // Owner-less posts last whatever the direction.
        if (a.uploaderId === null || b.uploaderId === null)
          c = (a.uploaderId === null ? 1 : 0) - (b.uploaderId === null ? 1 : 0);
        else c = sign * (a.uploaderId - b.uploaderId);
      } else if (o.key === 'createdAt') c = sign * (Date.parse(a.createdAt) - Date.parse(b.createdAt));
      else c = sign * cmp(a.id, b.id);
      if (c !== 0) return c;
    }
    return 0;
  });
}

export interface RefCondition {
  type: string;
  value: string;
}

/** Word tokens as Lucene's standard analyzer makes them (UAX #29 words, lower-cased). */
const segmenter = new Intl.Segmenter('en', { granularity: 'word' });
export function words(text: string): string[] {
  return [...segmenter.segment(text)].filter((s) => s.isWordLike).map((s) => s.segment.toLowerCase());
}

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment, the
 * Damerau-Levenshtein variant Lucene's fuzzy automata implement), over code points.
 */
export function editDistance(a: string, b: string): number {
  const s = Array.from(a);
  const t = Array.from(b);
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[s.length][t.length];
}

/** Typos allowed in a query word (docs/decisions.md §11): none below 5 code points, one up to 8, then two. */
export const allowedTypos = (word: string): number => {
  const n = Array.from(word).length;
  return n < 5 ? 0 : n < 9 ? 1 : 2;
};

/** A query word against a text's words: exact, within its typos, or (the last word) as a prefix. */
export function wordMatches(word: string, textWords: Set<string>, last: boolean): boolean {
  if (textWords.has(word)) return true;
  const typos = allowedTypos(word);
  const n = Array.from(word).length;
  for (const w of textWords) {
    if (last && w.startsWith(word)) return true;
    // The distance is at least the difference in length: skip the table when that rules it out.
    if (typos > 0 && Math.abs(Array.from(w).length - n) <= typos && editDistance(word, w) <= typos) return true;
  }
  return false;
}

const tokenCache = new WeakMap<PostRecord, Set<string>>();
const queryWords = new Map<string, string[]>();

/** Accounts by lower-cased name, for conditions that name a user (commentedBy). */
export type RefUsers = ReadonlyMap<string, number>;

function conditionHolds(p: PostRecord, c: RefCondition, users: RefUsers): boolean {
  const v = c.value.trim();
  switch (c.type) {
    // docs/decisions.md §18: the score is upvotes - downvotes; a bound is an integer
    case 'scoreGte':
      return p.upvotes - p.downvotes >= Number(v);
    case 'scoreLte':
      return p.upvotes - p.downvotes <= Number(v);
    case 'commentedBy': {
      const id = users.get(v.toLowerCase());
      return id !== undefined && p.commentedBy.includes(id);
    }
    case 'tagInclude':
      return p.tags.some((t) => t.name === v);
    case 'tagExclude':
      return !p.tags.some((t) => t.name === v);
    case 'ratingEq':
      return p.rating === v;
    case 'textContains':
      return p.text.toLowerCase().includes(v.toLowerCase());
    case 'uploadedBy':
      return (
        (p.uploaderName !== null && p.uploaderName.toLowerCase() === v.toLowerCase()) ||
        (/^[1-9][0-9]*$/.test(v) && p.uploaderId === Number(v))
      );
    case 'textMatch': {
      let have = tokenCache.get(p);
      if (!have) tokenCache.set(p, (have = new Set(words(p.text))));
      let want = queryWords.get(v);
      if (!want) queryWords.set(v, (want = words(v)));
      const last = want.length - 1;
      return want.length > 0 && want.every((w, i) => wordMatches(w, have, i === last));
    }
    // docs/decisions.md §19
    case 'pool':
      return p.pools.some((x) => x.pool === Number(v));
    case 'childOf':
      return /^[1-9][0-9]*$/.test(v) ? p.parentSeq === Number(v) : p.parentId === v.toLowerCase();
    case 'sourceContains':
      return p.source.toLowerCase().includes(v.toLowerCase());
    // docs/decisions.md §23
    case 'hasNotes':
      return p.notes > 0 === (v.toLowerCase() === 'true');
    default:
      throw new Error(`reference: condition ${c.type}`);
  }
}

/** A post's position in the pool a request's one pool condition names. */
const positionIn = (p: PostRecord, pool: number) => p.pools.find((x) => x.pool === pool)!.position;

/** Matches in order. For orderBy relevance with a textMatch condition the order is left to the caller. */
export function refImageSearch(
  posts: PostRecord[],
  body: { conditions?: RefCondition[]; orderBy?: unknown; order?: unknown },
  users: RefUsers = new Map(),
): PostRecord[] {
  const matched = posts.filter((p) => (body.conditions ?? []).every((c) => conditionHolds(p, c, users)));
  if (body.orderBy === 'pool') {
    // The pool's order; ascending unless asked otherwise (docs/decisions.md §19).
    const pool = Number(body.conditions!.find((c) => c.type === 'pool')!.value.trim());
    const poolSign = body.order === 'desc' ? -1 : 1;
    return matched.sort((a, b) => poolSign * (positionIn(a, pool) - positionIn(b, pool)));
  }
  const sign = body.order === 'asc' ? 1 : -1;
  // The key, then the post number in the same direction.
  const key: ((p: PostRecord) => number) | undefined =
    body.orderBy === 'score'
      ? (p) => p.upvotes - p.downvotes
      : body.orderBy === 'comments'
        ? (p) => p.comments
        : undefined;
  const byDate = key === undefined && body.orderBy !== 'id' && body.orderBy !== 'relevance';
  return matched.sort(
    (a, b) =>
      (key ? sign * (key(a) - key(b)) : 0) ||
      (byDate ? sign * cmp(a.createdAt, b.createdAt) : 0) ||
      sign * (a.seq - b.seq),
  );
}
