import { invalid } from '../errors.ts';

/** The paging of `/posts.json` (docs/decisions.md §20). */
export type BooruPage = { kind: 'page'; n: number } | { kind: 'before' | 'after'; seq: number };

export const MAX_BOORU_LIMIT = 200;
export const DEFAULT_BOORU_LIMIT = 20;
/** Numbered pages stop here, as Danbooru's do; `bN` walks further. */
export const MAX_PAGE = 1000;

const one = (v: unknown): string | undefined => (Array.isArray(v) ? v[v.length - 1] : v) as string | undefined;

/** `limit`: 1 to 200, default 20; above 200 is read as 200, as Danbooru does. */
export function booruLimit(raw: unknown, dflt = DEFAULT_BOORU_LIMIT, max = MAX_BOORU_LIMIT): number {
  const v = one(raw);
  if (v === undefined || v === '') return dflt;
  if (!/^\d{1,9}$/.test(v) || Number(v) < 1) throw invalid(['limit'], `limit must be an integer from 1 to ${max}`);
  return Math.min(Number(v), max);
}

/** `page`: a number (0 is read as 1), `bN` (posts numbered below N) or `aN` (above N). */
export function booruPage(raw: unknown): BooruPage {
  const v = one(raw);
  if (v === undefined || v === '') return { kind: 'page', n: 1 };
  const m = /^([ab]?)(\d{1,15})$/.exec(v);
  if (!m) throw invalid(['page'], 'page must be a number, bN or aN');
  const n = Number(m[2]);
  if (m[1] === 'b') return { kind: 'before', seq: n };
  if (m[1] === 'a') return { kind: 'after', seq: n };
  if (n > MAX_PAGE) throw invalid(['page'], `page is at most ${MAX_PAGE}; walk further with page=bN`);
  return { kind: 'page', n: Math.max(1, n) };
}

/** `tags` (absent: every post); at most 4,096 characters. */
export function booruTags(raw: unknown): string {
  const v = one(raw) ?? '';
  if (typeof v !== 'string' || v.length > 4096) throw invalid(['tags'], 'tags is at most 4096 characters');
  return v;
}

/**
 * The feed's `spelling`: `danbooru` (absent) or `gallery`, the gallery's search box, so that its feed
 * link carries the box's text as it is (docs/decisions.md §20).
 */
export function feedSpelling(raw: unknown): 'danbooru' | 'gallery' {
  const v = one(raw);
  if (v === undefined || v === '' || v === 'danbooru') return 'danbooru';
  if (v === 'gallery') return 'gallery';
  throw invalid(['spelling'], 'spelling is danbooru or gallery');
}

/** A `search[...]` parameter (koa's query parser keeps the brackets in the key). */
export const searchParam = (query: Record<string, unknown>, name: string): string | undefined => {
  const v = one(query[`search[${name}]`]);
  return typeof v === 'string' && v !== '' ? v : undefined;
};

/**
 * Danbooru's `only=`: the fields each post is reduced to, comma-separated (gallery-dl's `metadata`
 * option sends `artist_commentary,children,notes,parent,uploader,id`); absent: the whole post.
 */
export function booruOnly(raw: unknown): string[] | undefined {
  const v = one(raw);
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string' || v.length > 1000 || !/^[a-z_]+(,[a-z_]+)*$/.test(v))
    throw invalid(['only'], 'only is a comma-separated list of field names');
  return [...new Set(v.split(','))];
}
