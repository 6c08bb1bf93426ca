import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { historyCheckSql, historyProblem, type HistoryBreak, type TableProblem } from '../db/table-problem.ts';

/** A box over a post's image, in the image's pixels (docs/decisions.md §23). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A note as stored, with its post's UUID joined in. */
export interface NoteRow extends Box {
  id: number;
  postSeq: number;
  postId: string;
  body: string;
  version: number;
  /** null once the account is deleted */
  authorId: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface NoteVersionRow extends Box {
  version: number;
  body: string;
  editorId: number | null;
  createdAt: string;
}

const SELECT = `SELECT n.id, n.post_seq AS postSeq, p.id AS postId, n.x, n.y, n.width, n.height, n.body, n.version,
  n.author_id AS authorId, n.created_at AS createdAt, n.updated_at AS updatedAt
  FROM notes n JOIN posts p ON p.seq = n.post_seq`;

/**
 * SQLite access for notes and their versions. A post's note count and last note time (posts.notes,
 * posts.last_noted_at) follow by trigger (migration 023). Callers own the transactions.
 */
export class NoteRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  get(id: number): NoteRow | undefined {
    return this.stmt(`${SELECT} WHERE n.id = ?`).get(id) as NoteRow | undefined;
  }

  /** A post's notes, oldest first. */
  ofPost(postSeq: number): NoteRow[] {
    return this.stmt(`${SELECT} WHERE n.post_seq = ? ORDER BY n.id`).all(postSeq) as NoteRow[];
  }

  /** The notes of several posts (Danbooru's only=notes), by post, oldest first. */
  ofPosts(seqs: readonly number[]): Map<number, NoteRow[]> {
    const out = new Map<number, NoteRow[]>(seqs.map((s) => [s, []]));
    if (seqs.length === 0) return out;
    const rows = this.stmt(
      `${SELECT} WHERE n.post_seq IN (SELECT value FROM json_each(?)) ORDER BY n.post_seq, n.id`,
    ).all(JSON.stringify(seqs)) as NoteRow[];
    for (const r of rows) out.get(r.postSeq)?.push(r);
    return out;
  }

  insert(postSeq: number, box: Box, body: string, authorId: number | null, at: string): number {
    const info = this.stmt(
      `INSERT INTO notes (post_seq, x, y, width, height, body, author_id, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(postSeq, box.x, box.y, box.width, box.height, body, authorId, at, at);
    const id = Number(info.lastInsertRowid);
    this.addVersion(id, 1, box, body, authorId, at);
    return id;
  }

  /** The note's next version: its box and body, and the version row beside it. */
  update(note: NoteRow, box: Box, body: string, editorId: number, at: string): void {
    const version = note.version + 1;
    this.stmt(
      'UPDATE notes SET x = ?, y = ?, width = ?, height = ?, body = ?, version = ?, updated_at = ? WHERE id = ?',
    ).run(box.x, box.y, box.width, box.height, body, version, at, note.id);
    this.addVersion(note.id, version, box, body, editorId, at);
  }

  delete(id: number): boolean {
    return this.stmt('DELETE FROM notes WHERE id = ?').run(id).changes > 0;
  }

  versions(id: number): NoteVersionRow[] {
    return this.stmt(
      `SELECT version, x, y, width, height, body, editor_id AS editorId, created_at AS createdAt
       FROM note_versions WHERE note_id = ? ORDER BY version DESC`,
    ).all(id) as NoteVersionRow[];
  }

  /** Moves every note of post `from` to post `into`, boxes kept (a merge, docs/decisions.md §15). */
  move(from: number, into: number): number {
    return this.stmt('UPDATE notes SET post_seq = ? WHERE post_seq = ?').run(into, from).changes;
  }

  /**
   * What `imgpost verify` reports of these tables: notes on posts that do not exist, histories that are not
   * exactly 1..version ending in the note as it stands, versions of notes that do not exist, and posts
   * whose note count or last note time (posts.notes, posts.last_noted_at, kept by trigger) disagree with
   * their notes. A box outside its image is none: a merge keeps boxes on a smaller image (§23).
   */
  problems(): TableProblem[] {
    const out: TableProblem[] = [];
    for (const r of this.stmt(
      'SELECT n.id, n.post_seq AS seq FROM notes n WHERE NOT EXISTS (SELECT 1 FROM posts p WHERE p.seq = n.post_seq)',
    ).all() as { id: number; seq: number }[])
      out.push({ table: 'notes', row: String(r.id), problem: `on post number ${r.seq}, which does not exist` });
    for (const b of this.stmt(
      historyCheckSql('notes', 'note_versions', 'note_id', ['x', 'y', 'width', 'height', 'body']),
    ).all() as HistoryBreak[])
      out.push({ table: 'note_versions', row: String(b.id), problem: historyProblem(b) });
    for (const id of this.stmt(
      'SELECT DISTINCT v.note_id FROM note_versions v WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.id = v.note_id)',
    )
      .pluck()
      .all() as number[])
      out.push({ table: 'note_versions', row: String(id), problem: 'versions of a note that does not exist' });
    for (const r of this.stmt(
      `SELECT p.id, p.notes, coalesce(n.c, 0) AS counted, p.last_noted_at AS lastNotedAt FROM posts p
       LEFT JOIN (SELECT post_seq, count(*) AS c FROM notes GROUP BY post_seq) n ON n.post_seq = p.seq
       WHERE p.notes <> coalesce(n.c, 0) OR (coalesce(n.c, 0) = 0) <> (p.last_noted_at IS NULL)`,
    ).all() as { id: string; notes: number; counted: number; lastNotedAt: string | null }[])
      out.push({
        table: 'posts',
        row: r.id,
        problem:
          r.notes !== r.counted
            ? `counts ${r.notes} notes, has ${r.counted}`
            : `last note time ${r.lastNotedAt ?? 'none'} with ${r.counted} notes`,
      });
    return out;
  }

  private addVersion(id: number, version: number, box: Box, body: string, editorId: number | null, at: string): void {
    this.stmt(
      `INSERT INTO note_versions (note_id, version, x, y, width, height, body, editor_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, version, box.x, box.y, box.width, box.height, body, editorId, at);
  }
}
