import { invalid } from '../../errors.ts';
import type { Rating } from '../../kernel/post-record.ts';
import { and, not, or, type Bounds, type NumericField, type Query, type QueryOrder } from './model.ts';
import { dateRange, intRange, secondsRange } from './ranges.ts';

/**
 * The Danbooru spelling of a query (docs/decisions.md §20): terms separated by spaces, all
 * required. `tag`, `-tag` (not), `~tag` (the `~` terms form one OR group), `tag*` (the most used tags
 * starting with it), `name:value` metatags, `order:`. A backslash takes the next character
 * literally, so a tag whose name looks like syntax stays searchable: `\-tag`, `\~tag`, `re\:zero`,
 * `star\*`, `back\\slash`. A term quoted after its metatag (`text:"a phrase"`) may hold spaces.
 * An unknown metatag, a malformed value or range is a 400 naming the term.
 */
export interface ParsedDanbooru {
  query: Query;
  order?: QueryOrder;
}

export const MAX_TERMS = 50;

export const ORDERS: readonly QueryOrder[] = [
  'id',
  'id_desc',
  'score',
  'score_asc',
  'favcount',
  'comment_count',
  'change',
  'random',
  'note',
  'note_asc',
];

const RATING_LETTERS: Record<string, Rating | null> = {
  g: 'none',
  general: 'none',
  none: 'none',
  q: 'moderate',
  questionable: 'moderate',
  moderate: 'moderate',
  e: 'violent',
  explicit: 'violent',
  violent: 'violent',
  // Danbooru's "sensitive" has no counterpart: it matches nothing.
  s: null,
  sensitive: null,
};

const bad = (term: string, why: string) => invalid(['tags'], `${why} in "${term}"`);

const ranges = (field: NumericField, list: Bounds[]): Query =>
  or(list.map((bounds) => ({ kind: 'range', field, bounds })));

/** A metatag's value (unescaped, unquoted) as a query; `term` names the whole term in errors. */
type Meta = (value: string, term: string) => Query;

const numeric =
  (field: NumericField): Meta =>
  (value, term) => {
    const list = intRange(value);
    if (!list) throw bad(term, `malformed range "${value}" (a number, >n, >=n, <n, <=n, a..b or a,b)`);
    return ranges(field, list);
  };

const METATAGS = new Map<string, Meta>([
  [
    'rating',
    (value, term) => {
      const values: Rating[] = [];
      for (const v of value.toLowerCase().split(',')) {
        const r = RATING_LETTERS[v];
        if (r === undefined) throw bad(term, `unknown rating "${v}" (g, q, e, s or none, moderate, violent)`);
        if (r !== null) values.push(r);
      }
      return values.length === 0 ? { kind: 'none' } : { kind: 'rating', values };
    },
  ],
  ['id', numeric('seq')],
  ['width', numeric('width')],
  ['height', numeric('height')],
  ['favcount', numeric('favorites')],
  ['score', numeric('score')],
  [
    'date',
    (value, term) => {
      const list = dateRange(value);
      if (!list) throw bad(term, `malformed date range "${value}" (YYYY-MM-DD, >, >=, <, <=, a..b or a,b)`);
      return ranges('created_at', list);
    },
  ],
  ['user', (value) => ({ kind: 'uploader', name: value })],
  ['fav', (value) => ({ kind: 'favoritedBy', name: value })],
  [
    'md5',
    (value, term) => {
      const list = value.toLowerCase().split(',');
      if (!list.every((v) => /^[0-9a-f]{32}$/.test(v))) throw bad(term, 'an md5 is 32 hexadecimal digits');
      return or(list.map((v) => ({ kind: 'md5', value: v })));
    },
  ],
  ['text', (value) => ({ kind: 'textContains', value })],
  // docs/decisions.md §19
  [
    'pool',
    (value, term) => {
      if (!/^[1-9]\d{0,15}$/.test(value)) throw bad(term, 'pool: takes a pool id');
      return { kind: 'pool', poolId: Number(value) };
    },
  ],
  [
    'parent',
    (value, term) => {
      if (value.toLowerCase() === 'none') return { kind: 'parent', seq: 'none' };
      if (!/^[1-9]\d{0,15}$/.test(value)) throw bad(term, 'parent: takes a post number or none');
      return { kind: 'parent', seq: Number(value) };
    },
  ],
  ['source', (value) => ({ kind: 'sourceContains', value })],
  // docs/decisions.md §22
  ['origin', (value) => ({ kind: 'originSite', value })],
  // docs/decisions.md §21
  [
    'filetype',
    (value, term) => {
      const exts = value.toLowerCase().split(',');
      for (const e of exts)
        if (!(e in FILE_TYPES)) throw bad(term, `unknown file type "${e}" (${Object.keys(FILE_TYPES).join(', ')})`);
      return { kind: 'fileExt', values: exts.map((e) => FILE_TYPES[e]!) };
    },
  ],
  [
    'duration',
    (value, term) => {
      const list = secondsRange(value);
      if (!list) throw bad(term, `malformed duration "${value}" (seconds: n, >n, >=n, <n, <=n, a..b or a,b)`);
      return ranges('duration', list);
    },
  ],
  // docs/decisions.md §23: `is:noted` (the one `is:` value this board has)
  [
    'is',
    (value, term) => {
      if (value.toLowerCase() !== 'noted') throw bad(term, `unknown value "${value}" of is: (noted)`);
      return { kind: 'hasNotes' };
    },
  ],
]);

/** `filetype:` values (docs/decisions.md §21) to the stored extensions. */
const FILE_TYPES: Record<string, string> = Object.assign(Object.create(null), {
  jpg: 'jpg',
  jpeg: 'jpg',
  png: 'png',
  gif: 'gif',
  webp: 'webp',
  avif: 'avif',
  webm: 'webm',
  mp4: 'mp4',
});

/**
 * The tags Danbooru adds to a post by itself (docs/decisions.md §21), here computed from the file and
 * never stored: a term naming one searches the file's facts.
 */
export const COMPUTED_TAGS: Readonly<Record<string, Query>> = Object.assign(Object.create(null), {
  animated: { kind: 'mediaKind', values: ['animation', 'video'] },
  video: { kind: 'mediaKind', values: ['video'] },
  sound: { kind: 'hasAudio', value: true },
});

/** Extra metatags (features that add fields register theirs here, docs/decisions.md §20). */
export function registerMetatag(name: string, meta: Meta): void {
  METATAGS.set(name, meta);
}

/** The terms of a query string: split on spaces, except inside a quoted metatag value; escapes kept. */
function terms(input: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < input.length) {
    while (i < input.length && /\s/.test(input[i])) i++;
    if (i >= input.length) break;
    let term = '';
    while (i < input.length && !/\s/.test(input[i])) {
      if (input[i] === '\\' && i + 1 < input.length) {
        term += input.slice(i, i + 2);
        i += 2;
      } else if (input[i] === '"' && term.endsWith(':')) {
        const close = input.indexOf('"', i + 1);
        const end = close < 0 ? input.length : close + 1;
        term += input.slice(i, end);
        i = end;
      } else term += input[i++];
    }
    out.push(term);
  }
  return out;
}

/** Index of the first unescaped `c`, or -1. */
function unescapedIndex(s: string, c: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === c) return i;
  }
  return -1;
}

const unescape = (s: string): string => s.replace(/\\(.)/gs, '$1');

/** One term without its `-` or `~`: a metatag, a prefix or a tag. `order:` is answered apart. */
function termQuery(body: string, term: string): Query | QueryOrder {
  const colon = unescapedIndex(body, ':');
  if (colon > 0 && !body.slice(0, colon).includes('\\')) {
    const name = body.slice(0, colon).toLowerCase();
    let value = body.slice(colon + 1);
    if (value.startsWith('"')) value = value.slice(1, value.endsWith('"') && value.length > 1 ? -1 : undefined);
    else value = unescape(value);
    if (name === 'order') {
      const o = value.toLowerCase() as QueryOrder;
      if (!ORDERS.includes(o)) throw bad(term, `unknown order "${value}" (${ORDERS.join(', ')})`);
      return o;
    }
    const meta = METATAGS.get(name);
    if (!meta) throw bad(term, `unknown metatag "${name}:"`);
    if (value === '') throw bad(term, `the metatag "${name}:" needs a value`);
    return meta(value, term);
  }
  if (body.endsWith('*') && !body.endsWith('\\*')) return { kind: 'tagPrefix', prefix: unescape(body.slice(0, -1)) };
  const name = unescape(body);
  return COMPUTED_TAGS[name.toLowerCase()] ?? { kind: 'tag', name };
}

export function parseDanbooru(input: string): ParsedDanbooru {
  const list = terms(input);
  if (list.length > MAX_TERMS) throw invalid(['tags'], `a query holds at most ${MAX_TERMS} terms`);
  const required: Query[] = [];
  const anyOf: Query[] = [];
  let order: QueryOrder | undefined;
  for (const term of list) {
    const op = term.length > 1 && (term[0] === '-' || term[0] === '~') ? term[0] : '';
    const q = termQuery(op ? term.slice(1) : term, term);
    if (typeof q === 'string') {
      if (op) throw bad(term, 'order: cannot be negated or in an OR group');
      order = q;
    } else if (op === '-') required.push(not(q));
    else if (op === '~') anyOf.push(q);
    else required.push(q);
  }
  if (anyOf.length > 0) required.push(or(anyOf));
  return { query: required.length === 0 ? { kind: 'all' } : and(required), ...(order ? { order } : {}) };
}
