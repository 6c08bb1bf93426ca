/**
 * What an import reports (docs/decisions.md §22): the counts, every file refused and why, the tags a
 * post could not hold, and the mapping a dry run would apply; kept in the run's history when it ends.
 */
import { AppError } from '../errors.ts';
import type { TagCategory } from '../kernel/post-record.ts';
import type { RefusedFile } from './archive.ts';
import type { ImportRuns } from './import-runs.ts';
import type { ImportRecord } from './sources/index.ts';

/** What a dry run would apply (and a real run applied). */
export interface ImportMapping {
  /** posts by site, with the family that read them */
  sites: Record<string, { family: string; posts: number }>;
  /** tags of each category */
  tags: Record<TagCategory, number>;
  /** the site's rating (as written there) → ours, with how many posts */
  ratings: Record<string, number>;
  /** fields no reader knows, with how many posts had them */
  unknownFields: Record<string, number>;
}

/** The origin's tags a post could not hold besides the ones it has (docs/decisions.md §22). */
export interface DroppedTags {
  file: string;
  tags: string[];
}

export interface ImportSummary {
  dryRun: boolean;
  /** posts made here from the archive's metadata */
  imported: number;
  /** origin posts that were near-duplicates of posts here, which they enriched */
  merged: number;
  /** origin posts imported before (nothing done) */
  alreadyImported: number;
  /** image files without metadata, imported bare */
  bare: number;
  /** bare image files that were near-duplicates (skipped, as before) */
  bareDuplicates: number;
  parentsSet: number;
  pools: number;
  comments: number;
  refused: RefusedFile[];
  /** posts imported or enriched without some of their origin's tags, over the post's limit */
  tagsDropped: DroppedTags[];
  mapping: ImportMapping;
}

/** A summary with nothing counted yet. */
export function emptySummary(dryRun: boolean, refused: RefusedFile[] = []): ImportSummary {
  return {
    dryRun,
    imported: 0,
    merged: 0,
    alreadyImported: 0,
    bare: 0,
    bareDuplicates: 0,
    parentsSet: 0,
    pools: 0,
    comments: 0,
    refused,
    tagsDropped: [],
    mapping: {
      sites: {},
      tags: { artist: 0, copyright: 0, character: 0, general: 0, meta: 0 },
      ratings: {},
      unknownFields: {},
    },
  };
}

/** One origin post read, counted into the mapping. */
export function tally(m: ImportMapping, r: ImportRecord): void {
  const site = (m.sites[r.site] ??= { family: r.family, posts: 0 });
  site.posts++;
  for (const t of r.tags) m.tags[t.category]++;
  const key = `${r.ratingGiven ?? '(none)'} -> ${r.rating}`;
  m.ratings[key] = (m.ratings[key] ?? 0) + 1;
  for (const f of r.unknownFields) m.unknownFields[f] = (m.unknownFields[f] ?? 0) + 1;
}

/** The run's counts into its history (`imgpost import --history`). */
export function finishRun(runs: ImportRuns, runId: number, summary: ImportSummary): void {
  runs.finish(runId, {
    imported: summary.imported + summary.bare,
    merged: summary.merged,
    already: summary.alreadyImported,
    refused: summary.refused.length,
  });
}

/** The reason an upload refused a file, as the report shows it; undefined for any other error. */
export function refusalOf(err: unknown): string | undefined {
  if (!(err instanceof AppError)) return undefined;
  if (err.code === 'validation' || err.code === 'unsupported_media' || err.code === 'media_too_complex')
    return err.message === 'request does not match the schema'
      ? String((err.details as { message: string }[])[0]?.message)
      : err.message;
  if (err.code === 'too_large') return err.message;
  return undefined;
}
