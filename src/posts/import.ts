import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import { IMPORTABLE_FILE } from '../media-store/formats.ts';
import type { Progress } from '../util/progress.ts';
import type { PostService } from './service.ts';

export interface ImportResult {
  imported: number;
  duplicates: number;
  invalid: { file: string; reason: string }[];
}

/** Image files under dir, recursively, in a stable order. */
export function listImageFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && IMPORTABLE_FILE.test(e.name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * Imports image files as legacy posts (no owner). Near-duplicates are skipped unless `force`.
 * The operator's files are copied, never moved.
 */
export async function importDirectory(
  posts: PostService,
  tmpDir: string,
  dir: string,
  opts: { force: boolean; progress: (total: number) => Progress },
): Promise<ImportResult> {
  const files = listImageFiles(dir);
  const progress = opts.progress(files.length);
  const result: ImportResult = { imported: 0, duplicates: 0, invalid: [] };
  for (const [i, file] of files.entries()) {
    const copy = path.join(tmpDir, `import-${process.pid}-${i}`);
    try {
      fs.copyFileSync(file, copy);
      const size = fs.statSync(copy).size;
      await posts.create({
        file: { path: copy, size, mimetype: null },
        metadata: {},
        force: opts.force,
        uploader: null,
      });
      result.imported++;
    } catch (err) {
      if (err instanceof AppError && err.code === 'duplicate_image') result.duplicates++;
      else if (err instanceof AppError && err.code === 'validation')
        result.invalid.push({
          file,
          reason:
            err.message === 'request does not match the schema'
              ? String((err.details as { message: string }[])[0]?.message)
              : err.message,
        });
      else throw err;
    } finally {
      fs.rmSync(copy, { force: true });
    }
    progress.update(i + 1);
  }
  progress.done();
  return result;
}
