import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { foldTag, prefixUpperBound } from './tag-fold.ts';

/**
 * Tag aliases and implications (docs/decisions.md §15, migration 009). The kernel resolves every tag set
 * through `resolve` before it stores it (PostRepository.addTags), so upload, edit, revert, import,
 * seeding and merge all store canonical, implication-closed sets without knowing these rules.
 * The tables are small (a vocabulary, not a post list): read straight from SQLite each time, so a
 * rule is in force the moment its transaction commits, in every process.
 */
export interface AliasRow {
  name: string;
  target: string;
  createdAt: string;
}

export class TagRules {
  private readonly stmt: (sql: string) => Statement;

  constructor(private readonly db: Db) {
    this.stmt = statementCache(db);
  }

  /** The name a write or a search means: the alias's target, or the name itself. */
  canonical(name: string): string {
    return (this.stmt('SELECT target FROM tag_aliases WHERE name = ?').pluck().get(name) as string | undefined) ?? name;
  }

  /**
   * The `limit` most used tags (then by name) some post carries whose name starts with `prefix`,
   * case-insensitively (tags.folded): what a Danbooru prefix term stands for (docs/decisions.md §20).
   */
  mostUsedByPrefix(prefix: string, limit: number): string[] {
    const low = foldTag(prefix);
    const high = prefixUpperBound(low);
    const where = low === '' ? '' : high === undefined ? 'AND folded >= ?' : 'AND folded >= ? AND folded < ?';
    const params = low === '' ? [] : high === undefined ? [low] : [low, high];
    return this.stmt(`SELECT name FROM tags WHERE post_count > 0 ${where} ORDER BY post_count DESC, name LIMIT ?`)
      .pluck()
      .all(...params, limit) as string[];
  }

  /** Aliases mapped to their targets, then everything they imply, without repeats, first-seen order. */
  resolve(names: readonly string[]): string[] {
    const out = new Set(names.map((n) => this.canonical(n)));
    for (const name of [...out]) for (const implied of this.closure(name)) out.add(implied);
    return [...out];
  }

  /** Every tag `name` implies, directly or through others (not `name` itself). */
  closure(name: string): string[] {
    return this.walk(name, 'SELECT implies FROM tag_implications WHERE tag = ?');
  }

  /** Every tag that implies `name`, directly or through others. */
  impliers(name: string): string[] {
    return this.walk(name, 'SELECT tag FROM tag_implications WHERE implies = ?');
  }

  private walk(start: string, sql: string): string[] {
    const next = this.stmt(sql).pluck();
    const seen = new Set<string>([start]);
    const queue = [start];
    while (queue.length > 0) {
      for (const n of next.all(queue.shift()!) as string[]) {
        if (!seen.has(n)) {
          seen.add(n);
          queue.push(n);
        }
      }
    }
    seen.delete(start);
    return [...seen];
  }

  direct(name: string): { implies: string[]; impliedBy: string[] } {
    return {
      implies: this.stmt('SELECT implies FROM tag_implications WHERE tag = ? ORDER BY implies')
        .pluck()
        .all(name) as string[],
      impliedBy: this.stmt('SELECT tag FROM tag_implications WHERE implies = ? ORDER BY tag')
        .pluck()
        .all(name) as string[],
    };
  }

  isAlias(name: string): boolean {
    return this.stmt('SELECT 1 FROM tag_aliases WHERE name = ?').pluck().get(name) !== undefined;
  }

  aliasesOf(target: string): string[] {
    return this.stmt('SELECT name FROM tag_aliases WHERE target = ? ORDER BY name').pluck().all(target) as string[];
  }

  tagExists(name: string): boolean {
    return this.stmt('SELECT 1 FROM tags WHERE name = ?').pluck().get(name) !== undefined;
  }

  hasImplications(name: string): boolean {
    return (
      this.stmt('SELECT 1 FROM tag_implications WHERE tag = ? OR implies = ? LIMIT 1').pluck().get(name, name) !==
      undefined
    );
  }

  putAlias(name: string, target: string, creatorId: number | null): void {
    this.stmt(
      `INSERT INTO tag_aliases (name, folded, target, creator_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET target = excluded.target, creator_id = excluded.creator_id, created_at = excluded.created_at`,
    ).run(name, foldTag(name), target, creatorId, new Date().toISOString());
  }

  deleteAlias(name: string): boolean {
    return this.stmt('DELETE FROM tag_aliases WHERE name = ?').run(name).changes > 0;
  }

  aliasCount(): number {
    return this.stmt('SELECT count(*) FROM tag_aliases').pluck().get() as number;
  }

  aliasPage(offset: number, limit: number): AliasRow[] {
    return this.stmt(
      'SELECT name, target, created_at AS createdAt FROM tag_aliases ORDER BY name LIMIT ? OFFSET ?',
    ).all(limit, offset) as AliasRow[];
  }

  /** false when it existed already. */
  putImplication(tag: string, implies: string, creatorId: number | null): boolean {
    return (
      this.stmt(
        'INSERT INTO tag_implications (tag, implies, creator_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
      ).run(tag, implies, creatorId, new Date().toISOString()).changes > 0
    );
  }

  deleteImplication(tag: string, implies: string): boolean {
    return this.stmt('DELETE FROM tag_implications WHERE tag = ? AND implies = ?').run(tag, implies).changes > 0;
  }

  /** Post numbers above `after` (and at most `upTo`) carrying any of `names`, ascending, `limit` of them. */
  postsCarrying(names: readonly string[], after: number, upTo: number, limit: number): number[] {
    return this.stmt(
      `SELECT DISTINCT pt.post_seq FROM post_tags pt JOIN tags t ON t.id = pt.tag_id
       WHERE t.name IN (SELECT value FROM json_each(?)) AND pt.post_seq > ? AND pt.post_seq <= ?
       ORDER BY pt.post_seq LIMIT ?`,
    )
      .pluck()
      .all(JSON.stringify(names), after, upTo, limit) as number[];
  }
}
