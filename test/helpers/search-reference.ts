/**
 * Plain-JavaScript evaluation of both search endpoints over the SQLite records, written from the
 * spec and decisions §6/§7 alone (it shares no code with src/search), for differential tests.
 */
import type { PostRecord } from '../../src/posts/post-record.ts';

export type RefSelector =
  | { type: 'text'; op: 'contains' | 'not_contains'; value: string }
  | { type: 'id'; op: 'contains'; value: string }
  | { type: 'tag'; op: 'include' | 'exclude'; value: string }
  | { type: 'rating'; value: string }
  | { type: 'createdAt' | 'updatedAt'; op: string; value: string }
  | { type: 'system'; op: 'untagged' | 'disowned' };

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
        if (a.uploaderId === null || b.uploaderId === null) c = (a.uploaderId === null ? 1 : 0) - (b.uploaderId === null ? 1 : 0);
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

const tokenCache = new WeakMap<PostRecord, Set<string>>();
const queryWords = new Map<string, string[]>();

function conditionHolds(p: PostRecord, c: RefCondition): boolean {
  const v = c.value.trim();
  switch (c.type) {
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
      return want.length > 0 && want.every((w) => have.has(w));
    }
    default:
      throw new Error(`reference: condition ${c.type}`);
  }
}

/** Matches in order. For orderBy relevance with a textMatch condition the order is left to the caller. */
export function refImageSearch(posts: PostRecord[], body: { conditions?: RefCondition[]; orderBy?: unknown; order?: unknown }): PostRecord[] {
  const matched = posts.filter((p) => (body.conditions ?? []).every((c) => conditionHolds(p, c)));
  const sign = body.order === 'asc' ? 1 : -1;
  const byDate = body.orderBy !== 'id' && body.orderBy !== 'relevance';
  return matched.sort((a, b) => (byDate ? sign * cmp(a.createdAt, b.createdAt) : 0) || sign * (a.seq - b.seq));
}
