import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { Favoriters } from '../kernel/post-people.ts';

/** One favorite as the caller's list shows it. */
export interface FavoriteRow {
  postSeq: number;
  shortcut: string | null;
  createdAt: string;
}

/**
 * SQLite access for favorites (docs/decisions.md §14). A post's count and its favoriters are part of the
 * post record and of its search document: the kernel reads them through `Favoriters`, which this
 * implements; the count column (posts.favorites) is kept by triggers (migration 011). Callers own the
 * transactions.
 */
export class FavoriteRepository implements Favoriters {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** The favoriters' user ids of each post, in id order (for the search document). */
  favoritersOf(seqs: readonly number[]): Map<number, number[]> {
    const out = new Map<number, number[]>(seqs.map((s) => [s, []]));
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      'SELECT post_seq AS seq, user_id AS userId FROM favorites WHERE post_seq IN (SELECT value FROM json_each(?)) ORDER BY post_seq, user_id',
    ).all(JSON.stringify(seqs)) as { seq: number; userId: number }[];
    for (const r of rows) out.get(r.seq)?.push(r.userId);
    return out;
  }

  /** Adds or updates; true when the favorite is new. `shortcut` undefined keeps the one there. */
  put(userId: number, postSeq: number, shortcut: string | null | undefined, createdAt: string): boolean {
    const added = this.stmt(
      'INSERT INTO favorites (user_id, post_seq, shortcut, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
    ).run(userId, postSeq, shortcut ?? null, createdAt).changes;
    if (added === 0 && shortcut !== undefined)
      this.stmt('UPDATE favorites SET shortcut = ? WHERE user_id = ? AND post_seq = ?').run(shortcut, userId, postSeq);
    return added > 0;
  }

  /** True when there was one to remove. */
  remove(userId: number, postSeq: number): boolean {
    return this.stmt('DELETE FROM favorites WHERE user_id = ? AND post_seq = ?').run(userId, postSeq).changes > 0;
  }

  /**
   * The post that holds this shortcut for this user, if any (shortcuts are unique per account, without regard to case).
   */
  shortcutOwner(userId: number, shortcut: string): number | undefined {
    return this.stmt('SELECT post_seq FROM favorites WHERE user_id = ? AND shortcut = ?')
      .pluck()
      .get(userId, shortcut) as number | undefined;
  }

  countOf(userId: number): number {
    return this.stmt('SELECT count(*) FROM favorites WHERE user_id = ?').pluck().get(userId) as number;
  }

  /** Newest favorite first. */
  listOf(userId: number, offset: number, limit: number): FavoriteRow[] {
    return this.stmt(
      `SELECT post_seq AS postSeq, shortcut, created_at AS createdAt FROM favorites WHERE user_id = ?
       ORDER BY created_at DESC, post_seq DESC LIMIT ? OFFSET ?`,
    ).all(userId, limit, offset) as FavoriteRow[];
  }

  /** The user's favorites whose shortcut starts with `prefix` (case-insensitive), shortest shortcut first. */
  byShortcutPrefix(userId: number, prefix: string, limit: number): number[] {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    return this.stmt(
      `SELECT post_seq FROM favorites WHERE user_id = ? AND shortcut LIKE ? ESCAPE '\\'
       ORDER BY length(shortcut), shortcut, created_at DESC LIMIT ?`,
    )
      .pluck()
      .all(userId, `${escaped}%`, limit) as number[];
  }

  /**
   * Moves every favorite of post `from` to post `into` (a merge of duplicates, docs/decisions.md §15): an
   * account that favorited both keeps the one on `into` (and its shortcut); the counts follow by trigger.
   */
  move(from: number, into: number): void {
    const rows = this.stmt(
      'SELECT user_id AS userId, shortcut, created_at AS createdAt FROM favorites WHERE post_seq = ?',
    ).all(from) as {
      userId: number;
      shortcut: string | null;
      createdAt: string;
    }[];
    this.stmt('DELETE FROM favorites WHERE post_seq = ?').run(from);
    // OR IGNORE: a favorite already on `into`, or its shortcut already used there, wins.
    const add = this.stmt(
      'INSERT OR IGNORE INTO favorites (user_id, post_seq, shortcut, created_at) VALUES (?, ?, ?, ?)',
    );
    for (const r of rows) add.run(r.userId, into, r.shortcut, r.createdAt);
  }

  /** Posts a user favorited (their documents change when the user goes). */
  seqsFavoritedBy(userId: number): number[] {
    return this.stmt('SELECT post_seq FROM favorites WHERE user_id = ? ORDER BY post_seq')
      .pluck()
      .all(userId) as number[];
  }

  /** The count column, as SQLite keeps it (tests, verify). */
  countOfPost(postSeq: number): number | undefined {
    return this.stmt('SELECT favorites FROM posts WHERE seq = ?').pluck().get(postSeq) as number | undefined;
  }
}
