import type { Db } from '../db/sqlite.ts';

export interface ImportCounts {
  imported: number;
  merged: number;
  already: number;
  refused: number;
}

export interface ImportRun extends ImportCounts {
  id: number;
  source: string;
  startedAt: string;
  /** null while it runs, or when it was killed */
  finishedAt: string | null;
}

/** The imports run (docs/decisions.md §22): what, when, how many; `imgpost import --history` lists them. */
export class ImportRuns {
  constructor(private readonly db: Db) {}

  start(source: string): number {
    return Number(
      this.db
        .prepare('INSERT INTO import_runs (source, started_at) VALUES (?, ?)')
        .run(source, new Date().toISOString()).lastInsertRowid,
    );
  }

  finish(id: number, c: ImportCounts): void {
    this.db
      .prepare(
        'UPDATE import_runs SET finished_at = ?, imported = ?, merged = ?, already = ?, refused = ? WHERE id = ?',
      )
      .run(new Date().toISOString(), c.imported, c.merged, c.already, c.refused, id);
  }

  /** Newest first. */
  list(limit = 100): ImportRun[] {
    return this.db
      .prepare(
        `SELECT id, source, started_at AS startedAt, finished_at AS finishedAt, imported, merged, already, refused
         FROM import_runs ORDER BY id DESC LIMIT ?`,
      )
      .all(limit) as ImportRun[];
  }
}
