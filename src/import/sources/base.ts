/**
 * What every source family shares (docs/decisions.md §22): the import record one metadata file becomes,
 * the family's interface, and the readers of the loosely typed values gallery-dl writes. One module per
 * site family beside this one reads its sites' metadata, as gallery-dl has one extractor per family.
 */
import type { Rating, TagCategory } from '../../kernel/post-record.ts';

/** One gallery-dl metadata file, parsed. */
export type Meta = Record<string, unknown>;

export interface ImportTag {
  /** as the origin wrote it; normalised and checked by the importer */
  name: string;
  category: TagCategory;
}

export interface ImportPool {
  /** the pool's id there */
  id: string;
  name: string;
  /** the post's place in it (1 first), when the metadata tells */
  position: number | null;
}

export interface ImportComment {
  id: string;
  author: string | null;
  body: string;
  createdAt: string;
}

/** What one origin post becomes here, before the importer checks it. */
export interface ImportRecord {
  family: string;
  site: string;
  id: string;
  url: string;
  uploader: string | null;
  score: number | null;
  favCount: number | null;
  tags: ImportTag[];
  rating: Rating;
  /** the rating as the site wrote it (the dry run's mapping shows both) */
  ratingGiven: string | null;
  source: string;
  /** ISO 8601; null when the site gave none */
  createdAt: string | null;
  /** the parent's id there */
  parent: string | null;
  pools: ImportPool[];
  comments: ImportComment[];
  /** of the file, when the site gave it (checked by the live import) */
  md5: string | null;
  /** fields of the metadata no reader knows (the dry run lists them) */
  unknownFields: string[];
}

/** What a family reads from one metadata file; the importer adds the site, address and unknown fields. */
export type FamilyRead = Omit<ImportRecord, 'family' | 'site' | 'url' | 'unknownFields'>;

/** A metadata file that cannot be imported, with the reason shown in the report. */
export class Refusal extends Error {}

export interface SourceFamily {
  name: string;
  /** gallery-dl's categories of the family's sites, each with its address */
  sites: Readonly<Record<string, string>>;
  /** whether metadata of an unknown category has this family's shape */
  recognises(meta: Meta): boolean;
  read(meta: Meta): FamilyRead;
  /** a post's path on a site of the family */
  postPath(id: string): string;
  /** the fields the family reads or leaves knowingly */
  known: ReadonlySet<string>;
}

/** Fields gallery-dl adds to every file's metadata. */
export const GALLERY_DL_FIELDS = [
  'category',
  'subcategory',
  'filename',
  'extension',
  'date',
  'search_tags',
  'search_count',
  'num',
  'count',
  'total',
];

export const text = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** A non-empty string or number as a string, else null. */
export const idOf = (v: unknown): string | null => {
  const s = text(v).trim();
  return s === '' || s === '0' ? null : s;
};

export const int = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
};

/** A list of words: an array of strings, or one string of them separated by spaces. */
export const words = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.filter((x): x is string => typeof x === 'string' && x !== '')
    : typeof v === 'string'
      ? v.split(' ').filter((x) => x !== '')
      : [];

export const isObject = (v: unknown): v is Meta => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Before the first image boards, or later than tomorrow: not a date a post was made. */
const EARLIEST = Date.parse('1990-01-01T00:00:00Z');

/**
 * A creation date: ISO 8601, a Unix time in seconds, or the `Sat Jan 01 12:00:00 +0000 2022` of Gelbooru's
 * API. Absent: null. An unreadable or absurd one refuses the post: a wrong date would sort it among the
 * wrong posts forever.
 */
export function originDate(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  let ms: number;
  if (typeof v === 'number') ms = v * 1000;
  else if (typeof v !== 'string') throw new Refusal('the creation date is not a date');
  else {
    const gel = /^\w{3} (\w{3}) (\d{1,2}) (\d\d:\d\d:\d\d) ([+-]\d{4}) (\d{4})$/.exec(v.trim());
    const iso = gel ? `${gel[5]}-${monthOf(gel[1])}-${gel[2].padStart(2, '0')}T${gel[3]}${gel[4]}` : v.trim();
    ms = /^\d{4}-\d\d-\d\d([ T]\d\d:\d\d(:\d\d(\.\d+)?)?)?(Z|[+-]\d\d:?\d\d)?$/.test(iso)
      ? Date.parse(iso.replace(' ', 'T').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'))
      : NaN;
  }
  if (!Number.isFinite(ms) || ms < EARLIEST || ms > Date.now() + 86_400_000)
    throw new Refusal(`absurd creation date: ${String(v).slice(0, 40)}`);
  return new Date(ms).toISOString();
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const monthOf = (m: string) => String(MONTHS.indexOf(m) + 1).padStart(2, '0');

/** A site's own word for a tag category, as one of ours (docs/decisions.md §19); general when unknown. */
export function categoryNamed(word: string): TagCategory {
  const w = word.toLowerCase();
  if (['artist', 'artists', 'creator', 'circle', 'studio', 'contributor', 'origin'].includes(w)) return 'artist';
  if (['copyright', 'copyrights', 'series', 'franchise', 'fandom'].includes(w)) return 'copyright';
  if (['character', 'characters', 'oc'].includes(w)) return 'character';
  if (['meta', 'metadata', 'faults', 'medium', 'rating'].includes(w)) return 'meta';
  return 'general';
}

/**
 * Tags by category from gallery-dl's `tags_<category>` fields (arrays, or strings of words), then the
 * rest of `all` as general. A tag named in two categories keeps the first.
 */
export function tagsByCategory(meta: Meta, all: readonly string[], rename: (c: string) => TagCategory = categoryNamed) {
  const out: ImportTag[] = [];
  const seen = new Set<string>();
  for (const [key, value] of Object.entries(meta)) {
    if (!key.startsWith('tags_')) continue;
    const category = rename(key.slice(5));
    for (const name of words(value))
      if (!seen.has(name)) {
        seen.add(name);
        out.push({ name, category });
      }
  }
  for (const name of all)
    if (!seen.has(name)) {
      seen.add(name);
      out.push({ name, category: 'general' });
    }
  return out;
}

/** The first http(s) address among sources (one string, or several separated by new lines), or the first. */
export function firstSource(v: unknown): string {
  const list = (Array.isArray(v) ? v : text(v).split('\n')).map((s) => text(s).trim()).filter((s) => s !== '');
  return list[0] ?? '';
}

/** A pool as gallery-dl writes it: a number, or an object with `id` and `name`; `num` its place. */
export function poolOf(v: unknown, name: unknown, num: unknown): ImportPool | null {
  const id = isObject(v) ? idOf(v.id) : idOf(v);
  if (id === null) return null;
  const named = (isObject(v) ? text(v.name) : text(name)) || `pool ${id}`;
  return { id, name: named, position: int(num) };
}
