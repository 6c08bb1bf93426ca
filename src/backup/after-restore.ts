import type { Progress } from '../util/progress.ts';
import { reindex, type ReindexDeps, type ReindexResult } from '../search/reindex.ts';
import { rethumb, type RethumbDeps, type RethumbResult } from '../thumbnails/rethumb.ts';
import { RestoreRefused } from './restore.ts';

/**
 * What restore does once the files are in place: the search index, then thumbnails not made yet.
 * The restore command opens what each step works on (src/roles/jobs.ts) on the restored DATA_DIR.
 */

export async function rebuildIndex(job: ReindexDeps, progress: (total: number) => Progress): Promise<ReindexResult> {
  try {
    // Nothing else writes this DATA_DIR (restore holds its lock): no running relays to wait for.
    return await reindex(job, { settleMs: 0, retire: 'now', progress });
  } catch (err) {
    throw new RestoreRefused(
      `the data is restored, but rebuilding the index failed (${(err as Error).message}); run \`imgpost reindex\` before starting the server`,
    );
  }
}

/**
 * Thumbnails the backup lacked (not made yet when it ran), made from the restored images. The
 * thumbnailer also marks the restored thumbnail jobs done, so the server does not make them again.
 */
export function makeMissingThumbnails(
  job: RethumbDeps,
  concurrency: number,
  progress: (total: number) => Progress,
): Promise<RethumbResult> {
  return rethumb(job, { missingOnly: true, concurrency, progress });
}
