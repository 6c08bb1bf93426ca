/**
 * Random Danbooru-spelled queries with their meaning, evaluated in plain JavaScript over the SQLite
 * records (docs/decisions.md §20 alone; no code shared with src/search), for differential tests.
 */
import type { PostRecord } from '../../src/kernel/post-record.ts';
import type { Random } from '../../tools/seed/random.ts';

export interface Facts {
  posts: PostRecord[];
  /** post number → MD5 of the stored file (uploaded posts only) */
  md5: Map<number, string>;
  /** account name → id */
  users: Map<string, number>;
}

export interface RefTerm {
  spelling: string;
  holds: (p: PostRecord) => boolean;
}

const LETTERS = { none: ['g', 'none', 'general'], moderate: ['q', 'moderate'], violent: ['e', 'violent', 'explicit'] };
const fold = (s: string) => s.normalize('NFC').toUpperCase().toLowerCase();
const DAY = 86_400_000;

/** The 100 most used tags (then by name) starting with `prefix`, case-insensitively. */
export function prefixTags(posts: PostRecord[], prefix: string): Set<string> {
  const counts = new Map<string, number>();
  for (const p of posts) for (const t of p.tags) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
  const f = fold(prefix);
  return new Set(
    [...counts]
      .filter(([name]) => fold(name).startsWith(f))
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, 100)
      .map(([name]) => name),
  );
}

/** A range term over integers: [spelling of the value, predicate on a number]. */
function intRange(r: Random, around: number): [string, (n: number) => boolean] {
  const a = around + r.int(-2, 2);
  const b = a + r.int(0, Math.max(3, Math.abs(a) / 4));
  switch (r.int(0, 6)) {
    case 0:
      return [`${a}`, (n) => n === a];
    case 1:
      return [`>${a}`, (n) => n > a];
    case 2:
      return [`>=${a}`, (n) => n >= a];
    case 3:
      return [`<${a}`, (n) => n < a];
    case 4:
      return [`<=${a}`, (n) => n <= a];
    case 5:
      return [`${a}..${b}`, (n) => n >= a && n <= b];
    default:
      return [`${a},${b}`, (n) => n === a || n === b];
  }
}

function dateRange(r: Random, iso: string): [string, (iso: string) => boolean] {
  const day = Math.floor(Date.parse(iso) / DAY) + r.int(-2, 2);
  const d = (n: number) => new Date(n * DAY).toISOString().slice(0, 10);
  const of = (s: string) => Math.floor(Date.parse(s) / DAY);
  const b = day + r.int(0, 40);
  switch (r.int(0, 6)) {
    case 0:
      return [d(day), (s) => of(s) === day];
    case 1:
      return [`>${d(day)}`, (s) => of(s) > day];
    case 2:
      return [`>=${d(day)}`, (s) => of(s) >= day];
    case 3:
      return [`<${d(day)}`, (s) => of(s) < day];
    case 4:
      return [`<=${d(day)}`, (s) => of(s) <= day];
    case 5:
      return [`${d(day)}..${d(b)}`, (s) => of(s) >= day && of(s) <= b];
    default:
      return [`${d(day)},${d(b)}`, (s) => of(s) === day || of(s) === b];
  }
}

/** A tag name spelled so no character of it reads as syntax: `\\` before `\\`, `:`, `*` and a leading `-`/`~`. */
export const escapeTag = (name: string): string =>
  name.replace(/[\\:*]/g, (c) => `\\${c}`).replace(/^[-~]/, (c) => `\\${c}`);

/** One random term (without `-`/`~`), spelled and meant. */
export function randomTerm(r: Random, f: Facts): RefTerm {
  const p = f.posts[r.int(0, f.posts.length - 1)];
  const kind = r.weighted([
    ['tag', 8],
    ['prefix', 2],
    ['rating', 2],
    ['id', 2],
    ['width', 1],
    ['height', 1],
    ['date', 2],
    ['favcount', 1],
    ['score', 1],
    ['user', 2],
    ['fav', 1],
    ['md5', 1],
    ['text', 2],
    ['source', 1],
    ['parent', 1],
    ['pool', 1],
    ['noted', 1],
  ] as const);
  switch (kind) {
    case 'tag': {
      const name = p.tags.length ? r.pick(p.tags).name : 'no_such_tag';
      return { spelling: escapeTag(name), holds: (q) => q.tags.some((t) => t.name === name) };
    }
    case 'prefix': {
      const name = p.tags.length ? r.pick(p.tags).name : 'zz';
      const prefix = Array.from(name).slice(0, r.int(1, 3)).join('');
      const set = prefixTags(f.posts, prefix);
      return { spelling: `${prefix}*`, holds: (q) => q.tags.some((t) => set.has(t.name)) };
    }
    case 'rating': {
      const ratings = r.chance(0.3) ? ['none', 'violent'] : [p.rating];
      const words = ratings.map((x) => r.pick(LETTERS[x as keyof typeof LETTERS]));
      if (r.chance(0.1)) words.push('s');
      return { spelling: `rating:${words.join(',')}`, holds: (q) => ratings.includes(q.rating) };
    }
    case 'id':
    case 'width':
    case 'height':
    case 'favcount':
    case 'score': {
      const value = (q: PostRecord) =>
        kind === 'id'
          ? q.seq
          : kind === 'width'
            ? q.width
            : kind === 'height'
              ? q.height
              : kind === 'score'
                ? q.upvotes - q.downvotes
                : q.favorites;
      const [spelled, ok] = intRange(r, value(p));
      return { spelling: `${kind}:${spelled}`, holds: (q) => ok(value(q)) };
    }
    case 'date': {
      const [spelled, ok] = dateRange(r, p.createdAt);
      return { spelling: `date:${spelled}`, holds: (q) => ok(q.createdAt) };
    }
    case 'user': {
      const name = p.uploaderName ?? 'nobody_here';
      const spelled = r.chance(0.3) ? name.toUpperCase() : name;
      return { spelling: `user:${spelled}`, holds: (q) => q.uploaderName?.toLowerCase() === name.toLowerCase() };
    }
    case 'fav': {
      const names = [...f.users.keys()];
      const name = r.pick(names);
      const id = f.users.get(name)!;
      return { spelling: `fav:${name}`, holds: (q) => q.favoritedBy.includes(id) };
    }
    case 'md5': {
      const known = [...f.md5];
      const [seq, md5] = r.chance(0.8) && known.length ? r.pick(known) : [-1, 'f'.repeat(32)];
      return { spelling: `md5:${r.chance(0.5) ? md5.toUpperCase() : md5}`, holds: (q) => q.seq === seq };
    }
    case 'source': {
      const needle = p.source ? p.source.slice(8, 8 + r.int(3, 12)) : 'example';
      const spelled = r.chance(0.3) ? needle.toUpperCase() : needle;
      return { spelling: `source:${spelled}`, holds: (q) => q.source.toLowerCase().includes(needle.toLowerCase()) };
    }
    case 'parent': {
      if (r.chance(0.2)) return { spelling: 'parent:none', holds: (q) => q.parentSeq === null };
      const seq = p.parentSeq ?? p.seq;
      return { spelling: `parent:${seq}`, holds: (q) => q.parentSeq === seq };
    }
    case 'pool': {
      const pool = p.pools.length ? r.pick(p.pools).pool : 1;
      return { spelling: `pool:${pool}`, holds: (q) => q.pools.some((x) => x.pool === pool) };
    }
    // docs/decisions.md §23
    case 'noted':
      return { spelling: r.pick(['is:noted', 'is:NOTED']), holds: (q) => q.notes > 0 };
    case 'text': {
      const words = p.text.split(/\s+/).filter((w) => /^[\p{L}\p{N}]+$/u.test(w));
      if (words.length >= 2 && r.chance(0.5)) {
        const i = r.int(0, words.length - 2);
        const phrase = `${words[i]} ${words[i + 1]}`;
        return {
          spelling: `text:"${phrase}"`,
          holds: (q) => q.text.toLowerCase().includes(phrase.toLowerCase()),
        };
      }
      const word = words.length ? r.pick(words) : 'zzz';
      return { spelling: `text:${word}`, holds: (q) => q.text.toLowerCase().includes(word.toLowerCase()) };
    }
  }
}

export type RefOrder =
  | 'id'
  | 'id_desc'
  | 'favcount'
  | 'change'
  | 'score'
  | 'score_asc'
  | 'comment_count'
  | 'note'
  | 'note_asc'
  | undefined;

/** A random query: 0 to 4 required terms (some negated), an optional OR group, an optional order. */
export function randomQuery(r: Random, f: Facts): { tags: string; holds: (p: PostRecord) => boolean; order: RefOrder } {
  const parts: string[] = [];
  const preds: ((p: PostRecord) => boolean)[] = [];
  for (let i = r.int(0, 3); i > 0; i--) {
    const t = randomTerm(r, f);
    if (r.chance(0.3)) {
      parts.push(`-${t.spelling}`);
      preds.push((p) => !t.holds(p));
    } else {
      parts.push(t.spelling);
      preds.push(t.holds);
    }
  }
  if (parts.length === 0 || r.chance(0.3)) {
    const group = Array.from({ length: r.int(1, 3) }, () => randomTerm(r, f));
    for (const t of group) parts.push(`~${t.spelling}`);
    preds.push((p) => group.some((t) => t.holds(p)));
  }
  const order = r.pick([
    undefined,
    undefined,
    'id',
    'id_desc',
    'favcount',
    'change',
    'score',
    'score_asc',
    'comment_count',
    'note',
    'note_asc',
  ] as RefOrder[]);
  if (order) parts.push(`order:${order}`);
  // The terms' order does not matter.
  for (let i = parts.length - 1; i > 0; i--) {
    const j = r.int(0, i);
    [parts[i], parts[j]] = [parts[j], parts[i]];
  }
  return { tags: parts.join(' '), holds: (p) => preds.every((h) => h(p)), order };
}

/** The matches in the answer's order: newest first unless `order:`; the post number breaks ties. */
export function refSort(matched: PostRecord[], order: RefOrder): PostRecord[] {
  const bySeq = (a: PostRecord, b: PostRecord) => b.seq - a.seq;
  return [...matched].sort((a, b) => {
    if (order === 'id') return a.seq - b.seq;
    if (order === 'favcount') return b.favorites - a.favorites || bySeq(a, b);
    const score = (p: PostRecord) => p.upvotes - p.downvotes;
    if (order === 'score') return score(b) - score(a) || bySeq(a, b);
    if (order === 'score_asc') return score(a) - score(b) || bySeq(a, b);
    if (order === 'comment_count') return b.comments - a.comments || bySeq(a, b);
    // Danbooru's: the newest note's time, posts without notes last (note) or first (note_asc)
    const noted = (x: PostRecord) => (x.lastNotedAt === null ? null : Date.parse(x.lastNotedAt));
    if (order === 'note' || order === 'note_asc') {
      const [ta, tb] = [noted(a), noted(b)];
      const nullsFirst = order === 'note_asc';
      if (ta === null || tb === null)
        return (ta === null ? 1 : 0) - (tb === null ? 1 : 0) === 0
          ? bySeq(a, b)
          : (nullsFirst ? -1 : 1) * ((ta === null ? 1 : 0) - (tb === null ? 1 : 0));
      return (order === 'note' ? tb - ta : ta - tb) || bySeq(a, b);
    }
    if (order === 'change') return (a.updatedAt < b.updatedAt ? 1 : a.updatedAt > b.updatedAt ? -1 : 0) || bySeq(a, b);
    return bySeq(a, b);
  });
}
