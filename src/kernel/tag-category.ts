import { TAG_CATEGORIES } from './post-record.ts';

/**
 * The SQL order of a post's tags (docs/decisions.md §19): by category in TAG_CATEGORIES' order, then
 * by name; for a query joining `tags t`.
 */
export const TAG_ORDER = `CASE t.category ${TAG_CATEGORIES.map((c, i) => `WHEN '${c}' THEN ${i}`).join(' ')} END, t.name`;
