import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../src/db/sqlite.ts';

const TABLES: [string, string][] = [
  ['users', 'id'],
  ['posts', 'seq'],
  ['tags', 'id'],
  ['post_tags', 'post_seq, tag_id'],
  ['webhooks', 'id'],
];

/** Every file under `dir` as `relative/path size`, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out.push(`${path.relative(dir, full)} ${fs.statSync(full).size}`);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort();
}

/**
 * SHA-256 over the rows of the tables a request could change (posts, tags, post_tags, users,
 * webhooks) and the image files with their sizes. Equal before and after: nothing was stored.
 */
export function fingerprint(db: Db, dataDir: string): string {
  const hash = crypto.createHash('sha256');
  for (const [table, order] of TABLES) {
    hash.update(`#${table}\n`);
    for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).iterate())
      hash.update(JSON.stringify(row) + '\n');
  }
  hash.update('#files\n');
  for (const line of listFiles(path.join(dataDir, 'images'))) hash.update(line + '\n');
  return hash.digest('hex');
}
