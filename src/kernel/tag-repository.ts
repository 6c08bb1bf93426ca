import type { Db } from '../db/sqlite.ts';
import { foldTag, prefixUpperBound } from './tag-fold.ts';
import type { TagCategory } from './post-record.ts';

/** A tag with the number of posts that carry it. */
export interface TagCount {
  id: number;
  name: string;
  count: number;
  /** docs/decisions.md §19 */
  category: TagCategory;
  /** on a prefix hit through an alias (docs/decisions.md §15): the alias matched; the tag is its target */
  aliasOf?: string;
}

/**
 * Reads of the tags table with its counts (migration 008 keeps post_count exact by trigger).
 * Tags are created with their posts' tags (PostRepository.setTags), and by aliases, implications and
 * categories naming a tag not used yet (PostRepository.ensureTags).
 */
export class TagRepository {
  constructor(private readonly db: Db) {}

  /** The range of folded names a prefix covers, as SQL and parameters. */
  private range(prefix: string, column = 'folded'): { where: string; params: string[] } {
    const low = foldTag(prefix);
    const high = prefixUpperBound(low);
    if (low === '') return { where: '', params: [] };
    return high === undefined
      ? { where: `AND ${column} >= ?`, params: [low] }
      : { where: `AND ${column} >= ? AND ${column} < ?`, params: [low, high] };
  }

  /** Aliases whose name starts with `prefix`, each standing for its target (which some post carries). */
  private aliasHits(prefix: string): { sql: string; params: string[] } {
    const { where, params } = this.range(prefix, 'a.folded');
    return {
      sql: `SELECT t.id, t.name, t.post_count AS count, t.category, a.name AS aliasOf FROM tag_aliases a JOIN tags t ON t.name = a.target WHERE t.post_count > 0 ${where}`,
      params,
    };
  }

  /**
   * Tags some post carries whose name starts with `prefix`, case-insensitively, and (with a
   * prefix) the aliases that start with it. The full list (no prefix) leaves aliases out: their
   * targets are in it already.
   */
  count(prefix: string): number {
    const { where, params } = this.range(prefix);
    if (prefix === '') return this.db.prepare('SELECT count(*) FROM tags WHERE post_count > 0').pluck().get() as number;
    const aliases = this.aliasHits(prefix);
    return this.db
      .prepare(
        `SELECT (SELECT count(*) FROM tags WHERE post_count > 0 ${where}) + (SELECT count(*) FROM (${aliases.sql}))`,
      )
      .pluck()
      .get(...params, ...aliases.params) as number;
  }

  /** Most used first, then by name. */
  page(prefix: string, offset: number, limit: number): TagCount[] {
    const { where, params } = this.range(prefix);
    if (prefix === '')
      return this.db
        .prepare(
          'SELECT id, name, post_count AS count, category FROM tags WHERE post_count > 0 ORDER BY post_count DESC, name LIMIT ? OFFSET ?',
        )
        .all(limit, offset) as TagCount[];
    const aliases = this.aliasHits(prefix);
    // Alias hits rank as their target does, after the target itself (aliasOf NULL sorts first).
    const rows = this.db
      .prepare(
        `SELECT id, name, post_count AS count, category, NULL AS aliasOf FROM tags WHERE post_count > 0 ${where}
         UNION ALL ${aliases.sql} ORDER BY count DESC, name, aliasOf LIMIT ? OFFSET ?`,
      )
      .all(...params, ...aliases.params, limit, offset) as (TagCount & { aliasOf: string | null })[];
    return rows.map(({ aliasOf, ...t }) => (aliasOf === null ? t : { ...t, aliasOf }));
  }

  /**
   * Danbooru's tag listing (docs/decisions.md §20): tags some post carries whose name matches
   * `pattern` case-insensitively, `*` standing for any run of characters (absent: all); by count
   * (then name), by name, or newest first (`date`: the tag's id, as tags keep no creation time).
   */
  matching(pattern: string | undefined, order: 'count' | 'name' | 'date', offset: number, limit: number): TagCount[] {
    const like =
      pattern === undefined
        ? undefined
        : foldTag(pattern)
            .replace(/[\\%_]/g, (c) => `\\${c}`)
            .replaceAll('*', '%');
    const by = order === 'count' ? 'post_count DESC, name' : order === 'name' ? 'name' : 'id DESC';
    return this.db
      .prepare(
        `SELECT id, name, post_count AS count, category FROM tags WHERE post_count > 0
         ${like === undefined ? '' : "AND folded LIKE ? ESCAPE '\\'"} ORDER BY ${by} LIMIT ? OFFSET ?`,
      )
      .all(...(like === undefined ? [] : [like]), limit, offset) as TagCount[];
  }

  /** By exact name; undefined when no post carries it. */
  get(name: string): TagCount | undefined {
    return this.db
      .prepare('SELECT id, name, post_count AS count, category FROM tags WHERE name = ? AND post_count > 0')
      .get(name) as TagCount | undefined;
  }

  /** Sets a tag's category (docs/decisions.md §19); the tag must exist. Returns it, whatever its count. */
  setCategory(name: string, category: TagCategory): TagCount {
    this.db.prepare('UPDATE tags SET category = ? WHERE name = ?').run(category, name);
    return this.db
      .prepare('SELECT id, name, post_count AS count, category FROM tags WHERE name = ?')
      .get(name) as TagCount;
  }

  /** Fills `folded` where it is missing (tags from before migration 008). Returns how many. */
  foldMissing(): number {
    const rows = this.db.prepare('SELECT id, name FROM tags WHERE folded IS NULL').all() as {
      id: number;
      name: string;
    }[];
    if (rows.length === 0) return 0;
    const set = this.db.prepare('UPDATE tags SET folded = ? WHERE id = ?');
    this.db.transaction(() => rows.forEach((r) => set.run(foldTag(r.name), r.id))).immediate();
    return rows.length;
  }
}
