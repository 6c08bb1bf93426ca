/**
 * The source families (docs/decisions.md §22) and the one choice among them: a metadata file's `category`
 * names its site; a category no family knows (a board of its own, named by its host, such as
 * `127.0.0.1:3300`) is read by the first family whose shape the metadata has, the most particular first.
 */
import { danbooru } from './danbooru.ts';
import { e621 } from './e621.ts';
import { gelbooru, gelbooruV02 } from './gelbooru.ts';
import { moebooru } from './moebooru.ts';
import { philomena } from './philomena.ts';
import { shimmie2 } from './shimmie2.ts';
import { szurubooru } from './szurubooru.ts';
import { GALLERY_DL_FIELDS, Refusal, text, type ImportRecord, type Meta, type SourceFamily } from './base.ts';

export { Refusal, type ImportRecord, type ImportComment, type ImportPool, type ImportTag, type Meta } from './base.ts';

/** In the order a shape is tried. */
export const FAMILIES: readonly SourceFamily[] = [
  szurubooru,
  philomena,
  e621,
  danbooru,
  moebooru,
  gelbooru,
  gelbooruV02,
  shimmie2,
];

const BY_SITE = new Map(FAMILIES.flatMap((f) => Object.keys(f.sites).map((site) => [site, f] as const)));

/** Hosts of a machine here are reached over plain HTTP; any other over HTTPS. */
const rootOfHost = (host: string) =>
  /^(localhost|127\.|10\.|192\.168\.|\[::1\])/.test(host) ? `http://${host}` : `https://${host}`;

/** The family of a metadata file, or undefined when neither its category nor its shape is one known. */
export function familyOf(meta: Meta): SourceFamily | undefined {
  return BY_SITE.get(text(meta.category).toLowerCase()) ?? FAMILIES.find((f) => f.recognises(meta));
}

/** One metadata file as an import record; a Refusal (with its reason) when it cannot be one. */
export function recordOf(meta: Meta): ImportRecord {
  const family = familyOf(meta);
  if (!family) throw new Refusal('metadata of no known site: neither its category nor its shape is one understood');
  const site = text(meta.category).toLowerCase() || family.name;
  let read;
  try {
    read = family.read(meta);
  } catch (err) {
    throw err instanceof Refusal ? err : new Refusal(err instanceof Error ? err.message : String(err));
  }
  const known = family.sites[site];
  const root = known ?? (/[.:]/.test(site) ? rootOfHost(site) : '');
  const unknownFields = Object.keys(meta).filter(
    // gallery-dl's `tags_<category>` fields are read whatever the category's name.
    (k) => !k.startsWith('_') && !k.startsWith('tags_') && !family.known.has(k) && !GALLERY_DL_FIELDS.includes(k),
  );
  return { family: family.name, site, url: root ? root + family.postPath(read.id) : '', unknownFields, ...read };
}
