/**
 * The after-pass of an import (docs/decisions.md §22): parents and pools, once the posts are in, since a
 * parent may come after its child and a pool's posts anywhere in the archive.
 */
import { AppError } from '../errors.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { RefusedFile } from './archive.ts';
import type { ImportDeps, ImportItem } from './deps.ts';
import { refusalOf, type ImportSummary } from './summary.ts';

const MAX_POOL_NAME = 100;

/** Parents and pools of the imported items, counted into the summary. */
export async function linkImported(deps: ImportDeps, records: readonly ImportItem[], summary: ImportSummary) {
  summary.parentsSet = await linkParents(deps, records, summary.refused);
  summary.pools = await fillPools(deps, records, summary.refused);
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
