/**
 * An origin's post made fit for this board (docs/decisions.md §22): tag names as Danbooru writes them
 * (lower case, `_` for spaces), at most §4's tags on a post, a source cut to §19's length.
 */
import { MAX_SOURCE, MAX_TAG_LENGTH, TAG_CATEGORIES } from '../kernel/post-record.ts';
import { MAX_TAGS } from '../posts/schemas.ts';
import { Refusal, type ImportRecord, type ImportTag } from './sources/index.ts';

/** More tags than any board gives a post: metadata with more is not a post's but a broken or hostile archive's. */
export const MAX_IMPORT_TAGS = 1000;

/**
 * The record with its tags named as here; refused whole when a name cannot be one here (a post's tags
 * that are not names are a broken archive, not a post to keep part of) or the count is absurd.
 */
export function checked(r: ImportRecord): ImportRecord {
  if (r.tags.length > MAX_IMPORT_TAGS) throw new Refusal(`${r.tags.length} tags; at most ${MAX_IMPORT_TAGS}`);
  const seen = new Set<string>();
  const tags: ImportTag[] = [];
  for (const t of r.tags) {
    const name = t.name.trim().replace(/ /g, '_').toLowerCase();
    if (name === '') continue;
    if (/[\s\p{C}]/u.test(name))
      throw new Refusal(`a tag name with control characters or white space: ${JSON.stringify(name.slice(0, 80))}`);
    if (Array.from(name).length > MAX_TAG_LENGTH)
      throw new Refusal(`a tag name longer than ${MAX_TAG_LENGTH} characters: ${name.slice(0, 80)}`);
    if (seen.has(name)) continue;
    seen.add(name);
    tags.push({ name, category: t.category });
  }
  // A longer source is cut: an address, not a text, and the rest of the post is worth more.
  return { ...r, tags, source: Array.from(r.source).slice(0, MAX_SOURCE).join('') };
}

/**
 * The one tag rule of an imported post, made here or enriching a near-duplicate: the post keeps the tags
 * it has, and gains the origin's others while it holds fewer than §4's limit, the ones that tell the
 * picture apart first (§19's order: artist, copyright, character, general, meta; the origin's order
 * within each). `added`: the tags it gains; `dropped`: the ones it cannot hold, for the report.
 */
export function withinTagLimit(
  has: readonly string[],
  origin: readonly ImportTag[],
): { added: ImportTag[]; dropped: string[] } {
  const here = new Set(has);
  const rank = (t: ImportTag) => TAG_CATEGORIES.indexOf(t.category);
  const lacked = origin.filter((t) => !here.has(t.name)).sort((a, b) => rank(a) - rank(b));
  const room = Math.max(0, MAX_TAGS - here.size);
  return { added: lacked.slice(0, room), dropped: lacked.slice(room).map((t) => t.name) };
}
