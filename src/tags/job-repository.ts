import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

/** A job applying the implication `tag` → `implies` to the posts that existed when it was made. */
export interface TagJob {
  id: number;
  tag: string;
  implies: string;
  initiatorId: number | null;
  initiatorName: string | null;
  /** the last post number done */
  cursor: number;
  /** the highest post number when the job began; later posts were written under the rule */
  lastSeq: number;
  scanned: number;
  changed: number;
  state: 'running' | 'done';
  createdAt: string;
  finishedAt: string | null;
}

const SELECT = `SELECT id, tag, implies, initiator_id AS initiatorId, initiator_name AS initiatorName, cursor, last_seq AS lastSeq,
  scanned, changed, state, created_at AS createdAt, finished_at AS finishedAt FROM tag_jobs`;

/** The tag_jobs table (migration 009); only this file writes SQL on it. */
export class TagJobRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  create(job: Pick<TagJob, 'tag' | 'implies' | 'initiatorId' | 'initiatorName' | 'lastSeq'>): number {
    const info = this.stmt(
      'INSERT INTO tag_jobs (tag, implies, initiator_id, initiator_name, last_seq, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(job.tag, job.implies, job.initiatorId, job.initiatorName, job.lastSeq, new Date().toISOString());
    return Number(info.lastInsertRowid);
  }

  get(id: number): TagJob | undefined {
    return this.stmt(`${SELECT} WHERE id = ?`).get(id) as TagJob | undefined;
  }

  /** The oldest unfinished job: jobs run one at a time, in the order they were made. */
  next(): TagJob | undefined {
    return this.stmt(`${SELECT} WHERE state = 'running' ORDER BY id LIMIT 1`).get() as TagJob | undefined;
  }

  /** Moves the cursor (in the batch's own transaction, with its edits). */
  advance(id: number, cursor: number, scanned: number, changed: number): void {
    this.stmt('UPDATE tag_jobs SET cursor = ?, scanned = scanned + ?, changed = changed + ? WHERE id = ?').run(
      cursor,
      scanned,
      changed,
      id,
    );
  }

  finish(id: number): void {
    this.stmt(`UPDATE tag_jobs SET state = 'done', finished_at = ? WHERE id = ?`).run(new Date().toISOString(), id);
  }

  /** Newest first; `tag` narrows to the jobs of implications from or to that tag. */
  list(limit = 100, tag?: string): TagJob[] {
    if (tag === undefined) return this.stmt(`${SELECT} ORDER BY id DESC LIMIT ?`).all(limit) as TagJob[];
    return this.stmt(`${SELECT} WHERE tag = ? OR implies = ? ORDER BY id DESC LIMIT ?`).all(
      tag,
      tag,
      limit,
    ) as TagJob[];
  }

  pending(): number {
    return this.stmt(`SELECT count(*) FROM tag_jobs WHERE state = 'running'`).pluck().get() as number;
  }
}
