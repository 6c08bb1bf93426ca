import type { Db } from '../db/sqlite.ts';
import { RATINGS, type Rating } from '../kernel/post-record.ts';

/** docs/decisions.md §14: what a person sees until they choose otherwise */
export const DEFAULT_RATINGS: Rating[] = ['none', 'moderate'];

export interface Preferences {
  ratings: Rating[];
}

/**
 * Safe browsing preferences (docs/decisions.md §14), one row per account that changed them (migration 011).
 * The gallery applies them; the API's searches are not filtered by them.
 */
export class PreferenceStore {
  constructor(private readonly db: Db) {}

  get(userId: number): Preferences {
    const raw = this.db.prepare('SELECT ratings FROM user_preferences WHERE user_id = ?').pluck().get(userId) as
      | string
      | undefined;
    if (raw === undefined) return { ratings: [...DEFAULT_RATINGS] };
    const stored = JSON.parse(raw) as string[];
    return { ratings: RATINGS.filter((r) => stored.includes(r)) };
  }

  /** Stored in the ratings' own order, each once. */
  set(userId: number, prefs: Preferences): Preferences {
    const ratings = RATINGS.filter((r) => prefs.ratings.includes(r));
    this.db
      .prepare(
        'INSERT INTO user_preferences (user_id, ratings) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET ratings = excluded.ratings',
      )
      .run(userId, JSON.stringify(ratings));
    return { ratings };
  }
}
