/**
 * `imgpost import DIR` (docs/decisions.md §22): an archive's posts brought in with their metadata,
 * resumably. This module runs an import: it reads the archive, puts each origin post in (import-post.ts)
 * a few at once in origin order, then the bare files, then the parents and pools (link.ts), with the
 * progress and the report (summary.ts). A live board's import (live.ts) runs its posts the same way.
 */
import path from 'node:path';
import { TaskGroup } from '../util/limit.ts';
import { readMetadata, scanArchive } from './archive.ts';
import type { ImportDeps, ImportItem, ImportOptions } from './deps.ts';
import { checked, withinTagLimit } from './fit.ts';
import { importBare, importPost } from './import-post.ts';
import { linkImported } from './link.ts';
import { recordOf, Refusal, type ImportRecord } from './sources/index.ts';
import { emptySummary, finishRun, tally, type ImportSummary } from './summary.ts';

export type { ImportDeps, ImportItem, ImportOptions } from './deps.ts';
export type { ImportMapping, ImportSummary } from './summary.ts';

/**
 * Posts under way at once: each waits mostly on something else (the hash worker, the index's
 * near-duplicate lookup, the store, the index's refresh), so a few in flight keep every one of them busy.
 * Near-duplicates among them are still caught: the upload checks again inside its transaction.
 */
const IMPORTS_IN_FLIGHT = 16;

/**
 * Imports the items (in origin order), a few at once, counting into the summary. A post's parent, when
 * it is among the items and under way, is waited for: the child then names it at once instead of in an
 * edit afterwards; the same origin post twice (mirrored by a search and by a pool) goes one after the other.
 * The child waits in its own place, not the loop: the items after it start meanwhile (waiting in the
 * loop emptied the places at every parent; bench/notes/import.md measures the difference). A task
 * waits only on tasks started before it, which never wait on it, so the waits cannot go round in a circle.
 */
export async function importItems(
  deps: ImportDeps,
  items: readonly ImportItem[],
  opts: Omit<ImportOptions, 'progress'>,
  summary: ImportSummary,
  step: () => void,
): Promise<void> {
  const tasks = new TaskGroup(IMPORTS_IN_FLIGHT);
  const underWay = new Map<string, Promise<void>>();
  for (const { record, file, label = file } of items) {
    const key = `${record.site}\0${record.id}`;
    // `ended` promises never reject.
    const before = [
      underWay.get(key),
      record.parent === null ? undefined : underWay.get(`${record.site}\0${record.parent}`),
    ];
    const { ended } = await tasks.start(async () => {
      await Promise.all(before);
      if (deps.posts.origins.find(record.site, record.id)) summary.alreadyImported++;
      else if (opts.dryRun) {
        // What a new post would drop (a near-duplicate's merge is known only once the picture is hashed).
        const { dropped } = withinTagLimit([], record.tags);
        if (dropped.length > 0) summary.tagsDropped.push({ file: label, tags: dropped });
      } else {
        const outcome = await importPost(deps, record, file, opts);
        if (typeof outcome === 'string') summary.refused.push({ file: label, reason: outcome });
        else {
          summary[outcome.kind]++;
          summary.comments += outcome.comments;
          if (outcome.tagsDropped.length > 0) summary.tagsDropped.push({ file: label, tags: outcome.tagsDropped });
        }
      }
      step();
    });
    underWay.set(key, ended);
  }
  await tasks.all();
}

/** Imports an archive directory. */
export async function importArchive(deps: ImportDeps, dir: string, opts: ImportOptions): Promise<ImportSummary> {
  const scan = scanArchive(dir);
  const summary = emptySummary(opts.dryRun, [...scan.refused]);
  // Every record first: parents and pools need them all, and posts go in by their number there.
  const records: ImportItem[] = [];
  const bare: string[] = [];
  for (const entry of scan.entries) {
    if (entry.meta === null) {
      bare.push(entry.file);
      continue;
    }
    try {
      const record = checked(recordOf(readMetadata(entry.meta)));
      records.push({ record, file: entry.file });
    } catch (err) {
      if (!(err instanceof Refusal)) throw err;
      summary.refused.push({ file: entry.meta, reason: err.message });
    }
  }
  records.sort((a, b) => compareOrigins(a.record, b.record));
  for (const { record } of records) tally(summary.mapping, record);

  const runId = opts.dryRun ? undefined : deps.runs.start(path.resolve(dir));
  const progress = opts.progress(records.length + bare.length);
  let done = 0;
  await importItems(deps, records, opts, summary, () => progress.update(++done));
  const tasks = new TaskGroup(IMPORTS_IN_FLIGHT);
  for (const [i, file] of bare.entries())
    await tasks.start(async () => {
      if (!opts.dryRun) {
        const outcome = await importBare(deps, file, i, opts.force);
        if (outcome === 'imported') summary.bare++;
        else if (outcome === 'duplicate') summary.bareDuplicates++;
        else summary.refused.push({ file, reason: outcome.refused });
      }
      progress.update(++done);
    });
  await tasks.all();
  progress.done();
  if (!opts.dryRun) await linkImported(deps, records, summary);
  if (runId !== undefined) finishRun(deps.runs, runId, summary);
  return summary;
}

/** By site, then by the number there (ids that are not numbers after those that are, as text). */
function compareOrigins(a: ImportRecord, b: ImportRecord): number {
  if (a.site !== b.site) return a.site < b.site ? -1 : 1;
  const [x, y] = [a.id, b.id];
  const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
  if (nx && ny) return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  if (nx !== ny) return nx ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}
