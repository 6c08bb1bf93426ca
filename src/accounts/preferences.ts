import type { Db } from '../db/sqlite.ts';
import { RATINGS, type Rating } from '../kernel/post-record.ts';

/** docs/decisions.md §14: what a person sees until they choose otherwise */
export const DEFAULT_RATINGS: Rating[] = ['none', 'moderate'];

export interface Preferences {
  ratings: Rating[];
  /** docs/decisions.md §18: lines of tags; a post carrying every tag of a line (and none of its `-tag`s) is hidden */
  blacklist: string[];
}

/**
 * Safe browsing and blacklist preferences (docs/decisions.md §14, §18), one row per account that changed
 * them (migrations 011, 018). The gallery applies them; the API's searches are not filtered by them.
 */
export class PreferenceStore {
  constructor(private readonly db: Db) {}

  get(userId: number): Preferences {
    const row = this.db.prepare('SELECT ratings, blacklist FROM user_preferences WHERE user_id = ?').get(userId) as
      | { ratings: string; blacklist: string }
      | undefined;
    if (row === undefined) return { ratings: [...DEFAULT_RATINGS], blacklist: [] };
    const stored = JSON.parse(row.ratings) as string[];
    return { ratings: RATINGS.filter((r) => stored.includes(r)), blacklist: JSON.parse(row.blacklist) as string[] };
  }

  /** Ratings stored in their own order, each once; a field left out keeps what is stored. */
  set(userId: number, prefs: Partial<Preferences>): Preferences {
    const current = this.get(userId);
    const ratings = RATINGS.filter((r) => (prefs.ratings ?? current.ratings).includes(r));
    const blacklist = prefs.blacklist ?? current.blacklist;
    this.db
      .prepare(
        `INSERT INTO user_preferences (user_id, ratings, blacklist) VALUES (?, ?, ?)
         ON CONFLICT (user_id) DO UPDATE SET ratings = excluded.ratings, blacklist = excluded.blacklist`,
      )
      .run(userId, JSON.stringify(ratings), JSON.stringify(blacklist));
    return { ratings, blacklist };
  }
}
