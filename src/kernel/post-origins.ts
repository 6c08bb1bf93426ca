import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { PostOrigin } from './post-record.ts';

/** An origin to record (docs/decisions.md §22), with the facts about it the site gave. */
export interface NewOrigin extends PostOrigin {
  score?: number | null;
  favCount?: number | null;
  /** the origin post enriched an existing post (a near-duplicate) instead of becoming one */
  enriched?: boolean;
}

/**
 * Where imported posts came from (docs/decisions.md §22): one row per origin post, so an import never
 * brings the same one twice. The kernel's, since a post's record carries its origins. Callers own the
 * transactions.
 */
export class PostOrigins {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** Whether the origin post was imported before, and the post it became (null: since deleted here). */
  find(site: string, id: string): { postSeq: number | null } | undefined {
    return this.stmt('SELECT post_seq AS postSeq FROM post_origins WHERE site = ? AND origin_id = ?').get(site, id) as
      | { postSeq: number | null }
      | undefined;
  }

  /** The posts the origin posts among `ids` of one site became or enriched, by origin id. */
  seqsOf(site: string, ids: readonly string[]): Map<string, { seq: number; enriched: boolean }> {
    if (ids.length === 0) return new Map();
    const rows = this.stmt(
      `SELECT origin_id AS id, post_seq AS seq, enriched FROM post_origins
       WHERE site = ? AND post_seq IS NOT NULL AND origin_id IN (SELECT value FROM json_each(?))`,
    ).all(site, JSON.stringify(ids)) as { id: string; seq: number; enriched: number }[];
    return new Map(rows.map((r) => [r.id, { seq: r.seq, enriched: r.enriched === 1 }]));
  }

  /** Records an origin of post `seq`; false when that origin was recorded already. */
  add(seq: number, o: NewOrigin, at: string): boolean {
    return (
      this.stmt(
        `INSERT INTO post_origins (site, origin_id, post_seq, url, uploader, score, fav_count, enriched, imported_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
      ).run(o.site, o.id, seq, o.url, o.uploader, o.score ?? null, o.favCount ?? null, o.enriched ? 1 : 0, at)
        .changes === 1
    );
  }

  /** A merge (docs/decisions.md §15): the merged post's origins become the kept post's. */
  move(fromSeq: number, intoSeq: number): void {
    this.stmt('UPDATE post_origins SET post_seq = ? WHERE post_seq = ?').run(intoSeq, fromSeq);
  }

  /** The origins of each post among `seqs`, first imported first (the record's `origins`). */
  of(seqs: readonly number[]): Map<number, PostOrigin[]> {
    const out = new Map<number, PostOrigin[]>();
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      `SELECT post_seq AS seq, site, origin_id AS id, url, uploader FROM post_origins
       WHERE post_seq IN (SELECT value FROM json_each(?)) ORDER BY imported_at, site, origin_id`,
    ).all(JSON.stringify(seqs)) as (PostOrigin & { seq: number })[];
    for (const { seq, ...o } of rows) {
      const list = out.get(seq) ?? [];
      list.push(o);
      out.set(seq, list);
    }
    return out;
  }
}
