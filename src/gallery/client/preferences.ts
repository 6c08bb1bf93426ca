/**
 * Safe browsing (docs/decisions.md §14): the ratings a person wants to see in the gallery's grids. An
 * account keeps them on the server; an anonymous visitor sees `none` only until they choose
 * otherwise, for this browser session (sessionStorage).
 */
import { api, ok, type Rating } from './api.ts';
import { currentUser } from './session.ts';

export const RATINGS: Rating[] = ['none', 'moderate', 'violent'];
const SESSION_KEY = 'imgpost.ratings';

export async function visibleRatings(): Promise<Rating[]> {
  const self = await currentUser().catch(() => undefined);
  if (self) return (await ok(api.GET('/api/account/preferences'))).ratings;
  try {
    const kept = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as unknown;
    if (Array.isArray(kept)) return RATINGS.filter((r) => kept.includes(r));
  } catch {
    // a damaged entry means the default
  }
  return ['none'];
}

export async function saveRatings(ratings: Rating[]): Promise<Rating[]> {
  const self = await currentUser().catch(() => undefined);
  if (self) return (await ok(api.PUT('/api/account/preferences', { body: { ratings } }))).ratings;
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(ratings));
  return ratings;
}

/** The items of a grid whose rating the person wants to see, and how many were left out. */
export function applyRatings<T extends { rating: string }>(
  items: T[],
  ratings: Rating[],
): { shown: T[]; hidden: number } {
  // /image/search spells the third rating as the spec does (violent); an older spelling counts too.
  const wanted = new Set<string>(ratings.flatMap((r) => (r === 'violent' ? ['violent', 'violet'] : [r])));
  const shown = items.filter((i) => wanted.has(i.rating));
  return { shown, hidden: items.length - shown.length };
}
