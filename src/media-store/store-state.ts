import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { parseS3Location } from '../config.ts';

/**
 * The `media_store` table (migration 014), its one owner: which store is in use once
 * `imgpost media migrate` has moved the images, and the migration's progress. No row: MEDIA_STORE
 * names the store. Store names are `local` or `s3://bucket/prefix/` (canonical: see storeName).
 */
export interface MediaStoreState {
  active: string;
  /** set while a migration copies: the store reads fall back to */
  migratingFrom?: string;
  uptoSeq: number;
  cursorSeq: number;
  inFlight: string[];
  copied: number;
  switchedAt: string;
  finishedAt?: string;
}

interface Row {
  active: string;
  migrating_from: string | null;
  upto_seq: number;
  cursor_seq: number;
  in_flight: string;
  copied: number;
  switched_at: string;
  finished_at: string | null;
}

/**
 * The canonical name of a store given as `local` or `s3://bucket[/prefix]`: `local` or
 * `s3://bucket/` / `s3://bucket/prefix/` (the S3 store's own `location`). Throws for anything else.
 */
export function storeName(text: string): string {
  if (text === 'local') return 'local';
  if (!text.startsWith('s3://')) throw new Error('expected "local" or s3://bucket/prefix');
  const { bucket, prefix } = parseS3Location(text);
  return `s3://${bucket}/${prefix}`;
}

export class MediaStoreStates {
  private readonly stmt: (sql: string) => Statement;

  constructor(private readonly db: Db) {
    this.stmt = statementCache(db);
  }

  /** The recorded state, or undefined when no migration ever ran (MEDIA_STORE governs). */
  get(): MediaStoreState | undefined {
    const row = this.stmt('SELECT * FROM media_store WHERE id = 1').get() as Row | undefined;
    if (!row) return undefined;
    return {
      active: row.active,
      migratingFrom: row.migrating_from ?? undefined,
      uptoSeq: row.upto_seq,
      cursorSeq: row.cursor_seq,
      inFlight: JSON.parse(row.in_flight) as string[],
      copied: row.copied,
      switchedAt: row.switched_at,
      finishedAt: row.finished_at ?? undefined,
    };
  }

  /** Only the stores (what every media operation reads: no JSON to parse), or undefined with no row. */
  inUse(): { active: string; migratingFrom: string | null } | undefined {
    return this.stmt('SELECT active, migrating_from AS migratingFrom FROM media_store WHERE id = 1').get() as
      | { active: string; migratingFrom: string | null }
      | undefined;
  }

  /** The switch: writes go to `to` from now on, reads fall back to `from`. Call inside a write transaction. */
  begin(to: string, from: string, uptoSeq: number, inFlight: string[]): void {
    this.stmt(`INSERT INTO media_store (id, active, migrating_from, upto_seq, cursor_seq, in_flight, copied, switched_at, finished_at)
      VALUES (1, ?, ?, ?, 0, ?, 0, ?, NULL)
      ON CONFLICT (id) DO UPDATE SET active = excluded.active, migrating_from = excluded.migrating_from, upto_seq = excluded.upto_seq,
        cursor_seq = 0, in_flight = excluded.in_flight, copied = 0, switched_at = excluded.switched_at, finished_at = NULL`).run(
      to,
      from,
      uptoSeq,
      JSON.stringify(inFlight),
      new Date().toISOString(),
    );
  }

  /** Every post numbered up to `seq` has its files in the active store (`copied` more objects were put). */
  advance(seq: number, copied: number): void {
    this.stmt('UPDATE media_store SET cursor_seq = max(cursor_seq, ?), copied = copied + ? WHERE id = 1').run(
      seq,
      copied,
    );
  }

  /** The posts of writes in flight at the switch are copied too: reads need fall back no more. */
  finish(): void {
    this.stmt("UPDATE media_store SET migrating_from = NULL, in_flight = '[]', finished_at = ? WHERE id = 1").run(
      new Date().toISOString(),
    );
  }

  /**
   * Forgets the recorded store: MEDIA_STORE names it again. Restore does this: the restored
   * database's row names the store the backup was taken from, the files went into MEDIA_STORE's.
   */
  clear(): void {
    this.stmt('DELETE FROM media_store').run();
  }
}
