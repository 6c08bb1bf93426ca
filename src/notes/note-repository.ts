import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';

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

  private addVersion(id: number, version: number, box: Box, body: string, editorId: number | null, at: string): void {
    this.stmt(
      `INSERT INTO note_versions (note_id, version, x, y, width, height, body, editor_id, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(id, version, box.x, box.y, box.width, box.height, body, editorId, at);
  }
}
