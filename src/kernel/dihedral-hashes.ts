/**
 * The posts' hashes under the eight symmetries of the square (docs/decisions.md §24; the `dihedral` column of
 * migration 025): what the post page's similar list looks up, so the page never sends the picture back.
 * Part of the post repository (`posts.dihedral`). NULL: not computed yet (the backfill's cursor); an empty
 * blob: the picture has none (a moving picture, or a file that is gone), its own hash stands for all.
 */
import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { TRANSFORMS, type Transform } from '../hashing/dihedral.ts';

export type DihedralSet = Record<Transform, string>;

/** A post still waiting for its hashes: enough to find its file. */
export interface PendingDihedral {
  seq: number;
  id: string;
  ext: string;
  mediaKind: string;
}

/** 8 bytes a hash (its 64 bits, most significant first), in TRANSFORMS order. */
export function encodeDihedral(set: DihedralSet): Buffer {
  const out = Buffer.alloc(8 * TRANSFORMS.length);
  TRANSFORMS.forEach((t, i) => out.writeBigUInt64BE(BigInt(`0b${set[t]}`), 8 * i));
  return out;
}

/** The stored set; undefined for an empty blob (the picture has none). */
export function decodeDihedral(blob: Buffer): DihedralSet | undefined {
  if (blob.length !== 8 * TRANSFORMS.length) return undefined;
  return Object.fromEntries(
    TRANSFORMS.map((t, i) => [
      t,
      blob
        .readBigUInt64BE(8 * i)
        .toString(2)
        .padStart(64, '0'),
    ]),
  ) as DihedralSet;
}

export class DihedralHashes {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  /**
   * A post's stored set: the set, `none` when the picture has none, undefined while not computed yet (or the
   * post is gone).
   */
  of(seq: number): DihedralSet | 'none' | undefined {
    const blob = this.stmt('SELECT dihedral FROM posts WHERE seq = ?').pluck().get(seq) as Buffer | null | undefined;
    if (blob === null || blob === undefined) return undefined;
    return decodeDihedral(blob) ?? 'none';
  }

  /** Posts without their hashes numbered above `afterSeq`, in number order (the backfill's cursor). */
  pending(afterSeq: number, limit: number): PendingDihedral[] {
    return this.stmt(
      'SELECT seq, id, ext, media_kind AS mediaKind FROM posts WHERE dihedral IS NULL AND seq > ? ORDER BY seq LIMIT ?',
    ).all(afterSeq, limit) as PendingDihedral[];
  }

  /** How many posts have none yet. */
  pendingCount(): number {
    return this.stmt('SELECT count(*) FROM posts WHERE dihedral IS NULL').pluck().get() as number;
  }

  /** Records every post above `afterSeq` still without its set as having none (the seeder's posts have no files). */
  markNoneAbove(afterSeq: number): number {
    return this.stmt("UPDATE posts SET dihedral = x'' WHERE dihedral IS NULL AND seq > ?").run(afterSeq).changes;
  }

  /**
   * Records a post's set (undefined: it has none). Not part of the post's record: no version, no index change.
   * False when the post is gone.
   */
  set(seq: number, set: DihedralSet | undefined): boolean {
    const blob = set ? encodeDihedral(set) : Buffer.alloc(0);
    return this.stmt('UPDATE posts SET dihedral = ? WHERE seq = ?').run(blob, seq).changes > 0;
  }
}
