import { RATINGS, type Rating } from '../../kernel/post-record.ts';

// The webhook payload spells the third rating `violet` (docs/decisions.md §8); requests may too. A Map, not an
// object: a request's value is the key, and `constructor` must not find Object.prototype's.
export const RATING_ALIASES: ReadonlyMap<string, Rating> = new Map([['violet', 'violent']]);

/** A rating or its alias, already lower-cased; undefined for anything else. */
export function ratingNamed(lower: string): Rating | undefined {
  return (RATINGS as readonly string[]).includes(lower) ? (lower as Rating) : RATING_ALIASES.get(lower);
}
