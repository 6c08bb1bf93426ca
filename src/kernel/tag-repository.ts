import type { Db } from '../db/sqlite.ts';
import { foldTag, prefixUpperBound } from './tag-fold.ts';

/** A tag with the number of posts that carry it. */
export interface TagCount {
  id: number;
  name: string;
  count: number;
}

/**
 * Reads of the tags table with its counts (migration 008 keeps post_count exact by trigger).
 * Tags are created with their posts' tags (PostRepository.setTags).
 */
export class TagRepository {
  constructor(private readonly db: Db) {}

  /** The range of folded names a prefix covers, as SQL and parameters. */
  private range(prefix: string): { where: string; params: string[] } {
    const low = foldTag(prefix);
    const high = prefixUpperBound(low);
    if (low === '') return { where: '', params: [] };
    return high === undefined ? { where: 'AND folded >= ?', params: [low] } : { where: 'AND folded >= ? AND folded < ?', params: [low, high] };
  }

  /** Tags some post carries whose name starts with `prefix`, case-insensitively. */
  count(prefix: string): number {
    const { where, params } = this.range(prefix);
    return this.db.prepare(`SELECT count(*) FROM tags WHERE post_count > 0 ${where}`).pluck().get(...params) as number;
  }

  /** Most used first, then by name. */
  page(prefix: string, offset: number, limit: number): TagCount[] {
    const { where, params } = this.range(prefix);
    return this.db
      .prepare(`SELECT id, name, post_count AS count FROM tags WHERE post_count > 0 ${where} ORDER BY post_count DESC, name LIMIT ? OFFSET ?`)
      .all(...params, limit, offset) as TagCount[];
  }

  /** By exact name; undefined when no post carries it. */
  get(name: string): TagCount | undefined {
    return this.db.prepare('SELECT id, name, post_count AS count FROM tags WHERE name = ? AND post_count > 0').get(name) as TagCount | undefined;
  }

  /** Fills `folded` where it is missing (tags from before migration 008). Returns how many. */
  foldMissing(): number {
    const rows = this.db.prepare('SELECT id, name FROM tags WHERE folded IS NULL').all() as { id: number; name: string }[];
    if (rows.length === 0) return 0;
    const set = this.db.prepare('UPDATE tags SET folded = ? WHERE id = ?');
    this.db.transaction(() => rows.forEach((r) => set.run(foldTag(r.name), r.id))).immediate();
    return rows.length;
  }
}
