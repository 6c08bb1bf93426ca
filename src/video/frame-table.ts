import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import type { FrameHash, MovingPictureHashes } from './frames.ts';

/**
 * The frame hashes of moving pictures (post_frames, migration 022; docs/decisions.md §21): the poster's
 * instant and the spread frames, which the duplicate rule and the `frames` match of `similar` compare.
 * The poster's hash is the post's own (posts.hash). Rows go with their post (ON DELETE CASCADE).
 */
export class PostFrames {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /** Inside the upload's transaction, beside the post row. */
  set(seq: number, hashes: MovingPictureHashes): void {
    this.stmt('INSERT OR REPLACE INTO post_frames (post_seq, poster_at, poster_blank, frames) VALUES (?, ?, ?, ?)').run(
      seq,
      hashes.poster.at,
      hashes.poster.blank ? 1 : 0,
      JSON.stringify(hashes.frames),
    );
  }

  /** The stored hashes by post number; posts without frames (still images) are left out. */
  of(seqs: readonly number[]): Map<number, MovingPictureHashes> {
    if (seqs.length === 0) return new Map();
    const rows = this.stmt(
      `SELECT f.post_seq AS seq, f.poster_at AS posterAt, f.poster_blank AS posterBlank, f.frames, p.hash
       FROM post_frames f JOIN posts p ON p.seq = f.post_seq WHERE f.post_seq IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(seqs)) as FrameRow[];
    return new Map(rows.map((r) => [r.seq, hashesOf(r)]));
  }

  /**
   * Every moving picture's hashes, in post-number order, a page at a time (the `frames` match of
   * `similar` reads them all: moving pictures are a small share of the posts).
   */
  *all(pageSize = 2000): Generator<{ seq: number; id: string; hashes: MovingPictureHashes }> {
    let after = 0;
    for (;;) {
      const rows = this.stmt(
        `SELECT f.post_seq AS seq, p.id, f.poster_at AS posterAt, f.poster_blank AS posterBlank, f.frames, p.hash
         FROM post_frames f JOIN posts p ON p.seq = f.post_seq WHERE f.post_seq > ? ORDER BY f.post_seq LIMIT ?`,
      ).all(after, pageSize) as (FrameRow & { id: string })[];
      for (const r of rows) yield { seq: r.seq, id: r.id, hashes: hashesOf(r) };
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.seq;
    }
  }
}

interface FrameRow {
  seq: number;
  posterAt: number;
  posterBlank: number;
  frames: string;
  hash: string;
}

const hashesOf = (r: FrameRow): MovingPictureHashes => ({
  poster: { at: r.posterAt, hash: r.hash, blank: r.posterBlank === 1 },
  frames: JSON.parse(r.frames) as FrameHash[],
});
