/**
 * `imgpost import` (docs/decisions.md §22): an archive's posts brought in with their metadata, resumably.
 * Each post goes through the upload's own entry point (PostService.create: the same checks of the bytes,
 * the same near-duplicate rule, whatever media it accepts), with its origin, its new tags' categories and
 * its comments written in that upload's unit of work: the post and where it came from commit together,
 * so an import killed anywhere and run again finds every post it made and makes none twice. Parents and
 * pools follow once the posts are in (a parent may come after its child).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import type { CommentRepository } from '../comments/comment-repository.ts';
import type { AuthUser } from '../http/context.ts';
import type { PostRecord, TagCategory } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { PoolService } from '../pools/service.ts';
import type { PostService } from '../posts/service.ts';
import { MAX_SOURCE, MAX_TAG_LENGTH } from '../kernel/post-record.ts';
import type { Progress } from '../util/progress.ts';
import { readMetadata, scanArchive, type RefusedFile } from './archive.ts';
import type { ImportRuns } from './import-runs.ts';
import { recordOf, Refusal, type ImportRecord, type ImportTag } from './sources/index.ts';

/** More tags than any board gives a post (Danbooru's busiest have a few hundred). */
export const MAX_IMPORT_TAGS = 1000;
const MAX_POOL_NAME = 100;

export interface ImportDeps {
  postService: PostService;
  posts: PostRepository;
  unitOfWork: UnitOfWork;
  pools: PoolService;
  comments: CommentRepository;
  /** accounts by name, for --map-users */
  users: { getByName(name: string): { id: number; name: string; permission: number } | undefined };
  runs: ImportRuns;
  tmpDir: string;
}

export interface ImportOptions {
  force: boolean;
  dryRun: boolean;
  mapUsers: boolean;
  progress: (total: number) => Progress;
}

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
    mapping: {
      sites: {},
      tags: { artist: 0, copyright: 0, character: 0, general: 0, meta: 0 },
      ratings: {},
      unknownFields: {},
    },
  };
}

/** One origin post to import and its file (already here: in the archive, or downloaded). */
export interface ImportItem {
  record: ImportRecord;
  file: string;
}

/**
 * Imports the items (in origin order), a few at once, counting into the summary. A post's parent, when
 * it is among the items and under way, is waited for: the child then names it at once instead of in an
 * edit afterwards; the same origin post twice (mirrored by a search and by a pool) goes one after the other.
 */
export async function importItems(
  deps: ImportDeps,
  items: readonly ImportItem[],
  opts: Omit<ImportOptions, 'progress'>,
  summary: ImportSummary,
  step: () => void,
): Promise<void> {
  const lanes = new Lanes(IMPORTS_IN_FLIGHT);
  const underWay = new Map<string, Promise<void>>();
  for (const { record, file } of items) {
    const key = `${record.site}\0${record.id}`;
    const parent = record.parent === null ? undefined : underWay.get(`${record.site}\0${record.parent}`);
    if (parent) await parent;
    const same = underWay.get(key);
    if (same) await same;
    const work = lanes.run(async () => {
      if (deps.posts.origins.find(record.site, record.id)) summary.alreadyImported++;
      else if (!opts.dryRun) {
        const outcome = await importOne(deps, record, file, opts);
        if (typeof outcome === 'string') summary.refused.push({ file, reason: outcome });
        else {
          summary[outcome.kind]++;
          summary.comments += outcome.comments;
        }
      }
      step();
    });
    underWay.set(key, work);
    await lanes.room();
  }
  await lanes.all();
}

/** Parents and pools, once the posts are in (docs/decisions.md §22). */
export async function linkImported(deps: ImportDeps, records: readonly ImportItem[], summary: ImportSummary) {
  summary.parentsSet = await linkParents(deps, records, summary.refused);
  summary.pools = await fillPools(deps, records, summary.refused);
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
  const lanes = new Lanes(IMPORTS_IN_FLIGHT);
  for (const [i, file] of bare.entries()) {
    await lanes.room();
    void lanes.run(async () => {
      if (!opts.dryRun) {
        const outcome = await importBare(deps, file, i, opts.force);
        if (outcome === 'imported') summary.bare++;
        else if (outcome === 'duplicate') summary.bareDuplicates++;
        else summary.refused.push({ file, reason: outcome.refused });
      }
      progress.update(++done);
    });
  }
  await lanes.all();
  progress.done();
  if (!opts.dryRun) await linkImported(deps, records, summary);
  if (runId !== undefined) finishRun(deps, runId, summary);
  return summary;
}

export function finishRun(deps: ImportDeps, runId: number, summary: ImportSummary): void {
  deps.runs.finish(runId, {
    imported: summary.imported + summary.bare,
    merged: summary.merged,
    already: summary.alreadyImported,
    refused: summary.refused.length,
  });
}

/**
 * Posts under way at once: each waits mostly on something else (the hash worker, the index's
 * near-duplicate lookup, the store, the index's refresh), so a few in flight keep every one of them busy.
 * Near-duplicates among them are still caught: the upload checks again inside its transaction.
 */
const IMPORTS_IN_FLIGHT = 16;

/** At most `size` tasks at once; the first failure is thrown by all() (the rest finish first). */
class Lanes {
  private readonly running = new Set<Promise<void>>();
  private failure: unknown;

  constructor(private readonly size: number) {}

  run(task: () => Promise<void>): Promise<void> {
    const p = task().catch((err: unknown) => {
      this.failure ??= err;
    });
    const tracked = p.finally(() => this.running.delete(tracked));
    this.running.add(tracked);
    return tracked;
  }

  /** Resolves once fewer than `size` run; throws a failure as soon as one happened. */
  async room(): Promise<void> {
    while (this.running.size >= this.size) await Promise.race(this.running);
    if (this.failure !== undefined) {
      await this.all();
    }
  }

  async all(): Promise<void> {
    await Promise.all(this.running);
    if (this.failure !== undefined) throw this.failure;
  }
}

/** By site, then by the number there (ids that are not numbers after those that are, as text). */
export function compareOrigins(a: ImportRecord, b: ImportRecord): number {
  if (a.site !== b.site) return a.site < b.site ? -1 : 1;
  const [x, y] = [a.id, b.id];
  const [nx, ny] = [/^\d+$/.test(x), /^\d+$/.test(y)];
  if (nx && ny) return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  if (nx !== ny) return nx ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

export function tally(m: ImportMapping, r: ImportRecord): void {
  const site = (m.sites[r.site] ??= { family: r.family, posts: 0 });
  site.posts++;
  for (const t of r.tags) m.tags[t.category]++;
  const key = `${r.ratingGiven ?? '(none)'} -> ${r.rating}`;
  m.ratings[key] = (m.ratings[key] ?? 0) + 1;
  for (const f of r.unknownFields) m.unknownFields[f] = (m.unknownFields[f] ?? 0) + 1;
}

/**
 * Tag names as Danbooru writes them (docs/decisions.md §22: lower case, `_` for spaces); a post whose
 * tags cannot be names here is refused whole, since a post stripped of some of its tags would be
 * found by the wrong searches.
 */
export function checked(r: ImportRecord): ImportRecord {
  if (r.tags.length > MAX_IMPORT_TAGS) throw new Refusal(`${r.tags.length} tags; at most ${MAX_IMPORT_TAGS}`);
  const seen = new Set<string>();
  const tags: ImportTag[] = [];
  for (const t of r.tags) {
    const name = t.name.trim().replace(/ /g, '_').toLowerCase();
    if (name === '') continue;
    if (/[\s\p{C}]/u.test(name))
      throw new Refusal(`a tag name with control characters or white space: ${JSON.stringify(name.slice(0, 80))}`);
    if (Array.from(name).length > MAX_TAG_LENGTH)
      throw new Refusal(`a tag name longer than ${MAX_TAG_LENGTH} characters: ${name.slice(0, 80)}`);
    if (seen.has(name)) continue;
    seen.add(name);
    tags.push({ name, category: t.category });
  }
  // A longer source is cut: an address, not a text, and the rest of the post is worth more.
  return { ...r, tags, source: Array.from(r.source).slice(0, MAX_SOURCE).join('') };
}

type Outcome = { kind: 'imported' | 'merged'; comments: number } | string;

/** The reason an upload refused a file, as the report shows it. */
function refusalOf(err: unknown): string | undefined {
  if (!(err instanceof AppError)) return undefined;
  if (err.code === 'validation' || err.code === 'unsupported_media' || err.code === 'media_too_complex')
    return err.message === 'request does not match the schema'
      ? String((err.details as { message: string }[])[0]?.message)
      : err.message;
  if (err.code === 'too_large') return err.message;
  return undefined;
}

async function importOne(
  deps: ImportDeps,
  r: ImportRecord,
  file: string,
  opts: Omit<ImportOptions, 'progress'>,
): Promise<Outcome> {
  const copy = path.join(
    deps.tmpDir,
    `import-${process.pid}-${r.site.replace(/[^\w.-]/g, '_')}-${r.id.replace(/[^\w.-]/g, '_')}`,
  );
  const owner = opts.mapUsers && r.uploader ? deps.users.getByName(r.uploader) : undefined;
  const uploader: AuthUser | null = owner ? { id: owner.id, name: owner.name, permission: owner.permission } : null;
  const parent = r.parent === null ? undefined : deps.posts.origins.seqsOf(r.site, [r.parent]).get(r.parent);
  const origin = { site: r.site, id: r.id, url: r.url, uploader: r.uploader, score: r.score, favCount: r.favCount };
  const now = new Date().toISOString();
  let comments = 0;
  try {
    fs.copyFileSync(file, copy);
    await deps.postService.create({
      file: { path: copy, size: fs.statSync(copy).size, mimetype: null },
      metadata: {
        tags: r.tags.map((t) => t.name),
        rating: r.rating,
        source: r.source,
        ...(parent ? { parentId: String(parent.seq) } : {}),
      },
      force: opts.force,
      uploader,
      imported: {
        createdAt: r.createdAt ?? now,
        beforeInsert: () => deps.posts.ensureTagsWithCategory(r.tags),
        afterInsert: (seq) => {
          // A second import of the same origin, racing this one, finds the row and makes nothing.
          if (!deps.posts.origins.add(seq, origin, now))
            throw new AppError('conflict', `${r.site} post ${r.id} was imported meanwhile`);
          for (const c of r.comments) {
            deps.comments.insertImported(seq, {
              key: `${r.site}:${c.id}`,
              author: c.author,
              body: c.body,
              createdAt: c.createdAt,
            });
            comments++;
          }
        },
      },
    });
    return { kind: 'imported', comments };
  } catch (err) {
    if (err instanceof AppError && err.code === 'duplicate_image') {
      const into = (err.details as { id: string }[])[0].id;
      return (await enrich(deps, into, r, origin, now)) ? { kind: 'merged', comments: 0 } : 'imported meanwhile';
    }
    if (err instanceof AppError && err.code === 'conflict') return err.message;
    const reason = refusalOf(err);
    if (reason !== undefined) return reason;
    throw err;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

/**
 * A near-duplicate of a post here (docs/decisions.md §22): that post gains the tags it lacked and the
 * origin, in one version by nobody. False when the origin was recorded meanwhile.
 */
async function enrich(
  deps: ImportDeps,
  into: string,
  r: ImportRecord,
  origin: Parameters<PostRepository['origins']['add']>[1],
  at: string,
): Promise<boolean> {
  return deps.unitOfWork.write((tx) => {
    const post = deps.posts.getById(into);
    if (!post) throw new AppError('not_found', 'the near-duplicate was deleted meanwhile');
    if (!deps.posts.origins.add(post.seq, { ...origin, enriched: true }, at)) return false;
    deps.posts.ensureTagsWithCategory(r.tags);
    const tags = [...new Set([...post.tags.map((t) => t.name), ...r.tags.map((t) => t.name)])];
    deps.postService.editWithin(tx, post.id, { tags }, null);
    return true;
  });
}

async function importBare(
  deps: ImportDeps,
  file: string,
  n: number,
  force: boolean,
): Promise<'imported' | 'duplicate' | { refused: string }> {
  const copy = path.join(deps.tmpDir, `import-${process.pid}-bare-${n}`);
  try {
    fs.copyFileSync(file, copy);
    await deps.postService.create({
      file: { path: copy, size: fs.statSync(copy).size, mimetype: null },
      metadata: {},
      force,
      uploader: null,
    });
    return 'imported';
  } catch (err) {
    if (err instanceof AppError && err.code === 'duplicate_image') return 'duplicate';
    const reason = refusalOf(err);
    if (reason !== undefined) return { refused: reason };
    throw err;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

/** Origin ids a chunk at a time: a json_each list per statement. */
function* chunks<T>(list: readonly T[], size = 500): Generator<T[]> {
  for (let i = 0; i < list.length; i += size) yield list.slice(i, i + size);
}

/**
 * Every imported post's parent, where the parent came too (before or after its child): an edit by nobody,
 * as a version, for the posts whose parent is not already the one mapped. Posts that enriched a post here
 * leave its parent alone.
 */
async function linkParents(deps: ImportDeps, records: readonly ImportItem[], refused: RefusedFile[]): Promise<number> {
  let set = 0;
  const bySite = new Map<string, ImportItem[]>();
  for (const x of records)
    if (x.record.parent !== null) bySite.set(x.record.site, [...(bySite.get(x.record.site) ?? []), x]);
  for (const [site, list] of bySite)
    for (const part of chunks(list)) {
      const ids = part.flatMap((x) => [x.record.id, x.record.parent!]);
      const seqs = deps.posts.origins.seqsOf(site, ids);
      const children = deps.posts.getManyBySeq(part.flatMap((x) => seqs.get(x.record.id)?.seq ?? []));
      const bySeq = new Map<number, PostRecord>(children.map((p) => [p.seq, p]));
      for (const { record, file } of part) {
        const child = seqs.get(record.id);
        const parent = seqs.get(record.parent!);
        if (!child || child.enriched || !parent) continue;
        if (bySeq.get(child.seq)?.parentSeq === parent.seq) continue;
        try {
          await deps.unitOfWork.write((tx) =>
            deps.postService.editWithin(tx, String(child.seq), { parentId: String(parent.seq) }, null),
          );
          set++;
        } catch (err) {
          const reason = refusalOf(err);
          if (reason === undefined) throw err;
          refused.push({ file, reason: `its parent (${site} post ${record.parent}) was not set: ${reason}` });
        }
      }
    }
  return set;
}

/** The archive's pools, each in its order there (the place the metadata gives, else the post numbers'). */
async function fillPools(deps: ImportDeps, records: readonly ImportItem[], refused: RefusedFile[]): Promise<number> {
  const pools = new Map<string, { site: string; name: string; members: { id: string; position: number | null }[] }>();
  for (const { record } of records)
    for (const p of record.pools) {
      const key = `${record.site}\0${p.id}`;
      const pool = pools.get(key) ?? { site: record.site, name: p.name, members: [] };
      pool.members.push({ id: record.id, position: p.position });
      pools.set(key, pool);
    }
  let filled = 0;
  for (const pool of pools.values()) {
    // Records are in origin order already; a stable sort keeps it among equal places.
    const order = [...pool.members].sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity));
    const seqs = deps.posts.origins.seqsOf(
      pool.site,
      order.map((m) => m.id),
    );
    const mapped = [...new Set(order.flatMap((m) => seqs.get(m.id)?.seq ?? []))];
    if (mapped.length === 0) continue;
    const name =
      Array.from(pool.name.replace(/\p{C}/gu, ' ').trim()).slice(0, MAX_POOL_NAME).join('') || 'imported pool';
    try {
      await deps.pools.importOrder(name, '', mapped);
      filled++;
    } catch (err) {
      const reason = refusalOf(err);
      if (reason === undefined && !(err instanceof AppError && err.code === 'conflict')) throw err;
      refused.push({ file: `pool ${pool.site} ${name}`, reason: reason ?? String((err as Error).message) });
    }
  }
  return filled;
}
