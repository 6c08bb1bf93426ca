/**
 * Reading an archive directory (docs/decisions.md §22): every file with gallery-dl's metadata beside it
 * (`FILE.EXT.json`), and image files without it (imported bare, as before). Nothing outside the
 * directory is read: a link leading out of it is refused, whatever it names.
 */
import fs from 'node:fs';
import path from 'node:path';
import { IMPORTABLE_FILE } from '../media-store/formats.ts';
import { Refusal, type Meta } from './sources/index.ts';

export interface ArchiveEntry {
  /** the media file */
  file: string;
  /** its metadata file; null for a bare image */
  meta: string | null;
}

export interface RefusedFile {
  file: string;
  reason: string;
}

/** A metadata file larger than this is not gallery-dl's (a 100,000-tag post is a few megabytes). */
const MAX_METADATA_BYTES = 32 * 1024 * 1024;

/** The media files under `dir` (recursively, in a stable order) with their metadata, and what was refused. */
export function scanArchive(dir: string): { entries: ArchiveEntry[]; refused: RefusedFile[] } {
  const root = fs.realpathSync(dir);
  const inside = (p: string) => p === root || p.startsWith(root + path.sep);
  const entries: ArchiveEntry[] = [];
  const refused: RefusedFile[] = [];
  const walk = (d: string) => {
    const names = fs
      .readdirSync(d, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const files = new Set<string>();
    const escaped = new Set<string>();
    const metas: string[] = [];
    for (const e of names) {
      const p = path.join(d, e.name);
      let real: string;
      try {
        real = fs.realpathSync(p);
      } catch {
        refused.push({ file: p, reason: 'a link to nothing' });
        continue;
      }
      if (!inside(real)) {
        refused.push({ file: p, reason: 'path escapes DIR' });
        escaped.add(e.name);
        continue;
      }
      // A link inside the archive is read where it points, as itself: never followed into a loop.
      const stat = fs.statSync(real);
      if (stat.isDirectory()) {
        if (!e.isSymbolicLink()) walk(p);
      } else if (stat.isFile()) {
        if (e.name.endsWith('.json')) metas.push(e.name);
        else files.add(e.name);
      }
    }
    const described = new Set<string>();
    for (const m of metas) {
      const media = m.slice(0, -'.json'.length);
      // gallery-dl names metadata FILE.EXT.json; other JSON (its own config, an info file) is not a post's.
      if (!/\.[A-Za-z0-9]{2,5}$/.test(media) || escaped.has(media) || escaped.has(m)) continue;
      if (files.has(media)) {
        entries.push({ file: path.join(d, media), meta: path.join(d, m) });
        described.add(media);
      } else refused.push({ file: path.join(d, m), reason: `the metadata names a missing file: ${media}` });
    }
    for (const f of files)
      if (!described.has(f) && IMPORTABLE_FILE.test(f)) entries.push({ file: path.join(d, f), meta: null });
  };
  walk(dir);
  return { entries, refused };
}

/** A metadata file, parsed; a Refusal when it cannot be read as one. */
export function readMetadata(file: string): Meta {
  const size = fs.statSync(file).size;
  if (size > MAX_METADATA_BYTES) throw new Refusal(`metadata of ${size} bytes; at most ${MAX_METADATA_BYTES}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Refusal(`unreadable JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Refusal('the metadata is not a JSON object');
  return parsed as Meta;
}
