import { toPostDocument } from '../elasticsearch/post-document.ts';
import {
  BULK_LOAD_TIMEOUT_MS,
  replicaSettings,
  TARGETS_TTL_MS,
  type PostsIndex,
} from '../elasticsearch/posts-index.ts';
import type { Db } from '../db/sqlite.ts';
import type { Logger } from '../log.ts';
import type { Outbox } from '../kernel/outbox.ts';
import type { OutboxRelay } from '../elasticsearch/outbox-relay.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import { TaskGroup } from '../util/limit.ts';
import { silentProgress, type Progress } from '../util/progress.ts';
import { IndexRetirement } from './retirement.ts';

export interface ReindexDeps {
  postsIndex: PostsIndex;
  postRepository: PostRepository;
  outbox: Outbox;
  relay: Pick<OutboxRelay, 'changeFor'>;
  /** where the previous indices are recorded for retirement (src/search/retirement.ts) */
  db: Db;
  log?: Logger;
}

/**
 * The largest index merged into one segment after a reindex. Lucene's merge policy leaves segments of 5 GB
 * alone; a single larger one would never be merged again while later updates mark its documents deleted, and
 * merging 10M posts (about 10 GB) into it would take both cores of a small box for a quarter of an hour. Above
 * this the index keeps the segments the load made, as any index that is written to does.
 */
export const MERGE_TO_ONE_MAX_BYTES = 5 * 2 ** 30;

/** Whether `index` is small enough to be merged into one segment. */
export async function mergesToOne(es: PostsIndex['client'], index: string): Promise<boolean> {
  const stats = await es.indices.stats({ index, metric: ['store'] });
  return (stats._all.primaries?.store?.size_in_bytes ?? 0) <= MERGE_TO_ONE_MAX_BYTES;
}

export interface ReindexOptions {
  /** posts per bulk request (default 1000) */
  batch?: number;
  progress?: (total: number) => Progress;
  /**
   * the least time between creating the index and the catch-up, so that every running relay has
   * listed its write targets again and includes the new index (overlaps the load)
   */
  settleMs?: number;
  /** bulk requests in flight (default 2) */
  concurrency?: number;
  /**
   * 'deferred' (default): the previous index is recorded and retired later by the server's loop or
   * the next reindex, after a grace period and the relays' target cache (src/search/retirement.ts);
   * 'now': deleted at once, when nothing else searches or writes (restore, seeding)
   */
  retire?: 'deferred' | 'now';
  /**
   * merge the new index into one segment in the background once it serves, if it is no larger than
   * MERGE_TO_ONE_MAX_BYTES (default true)
   */
  merge?: boolean;
  /** how long to wait for the new index's replicas before swapping anyway (default 60 s) */
  replicaWaitMs?: number;
}

export interface ReindexResult {
  previous: string[];
  index: string;
  posts: number;
  caughtUp: number;
  ms: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Builds a fresh versioned index from SQLite and swaps the alias to it, without a moment in which
 * searches see a partial index:
 *  1. create the index without replicas (bulk loading is faster; they are added afterwards), and
 *     note the outbox position;
 *  2. bulk-load every post (external versions: a newer copy the relays already wrote wins,
 *     conflicts are fine);
 *  3. apply ELASTICSEARCH_REPLICAS, wait (bounded) for the copies, refresh;
 *  4. once the relays' target cache has expired since step 1 (at any real size the load took
 *     longer), replay the outbox rows written since step 1: a change a relay wrote to the previous
 *     index alone, with targets listed before the new index existed, was committed before that
 *     cache expired, so the replay covers it; every later change the relays write to both;
 *  5. record the previous indices for retirement, swap the alias in one atomic updateAliases call
 *     and return; the previous indices are closed and deleted later (src/search/retirement.ts).
 */
export async function reindex(deps: ReindexDeps, opts: ReindexOptions = {}): Promise<ReindexResult> {
  const started = Date.now();
  const { postsIndex, postRepository, outbox } = deps;
  const es = postsIndex.client;
  const batch = opts.batch ?? 1000;
  const retirement = new IndexRetirement(deps);
  // Steps of earlier reindexes that have fallen due (the server's loop does them too; without a server, this does).
  await retirement.pass();

  // Normally one index; more only if something else pointed the alias elsewhere too. All are replaced.
  const previous = (await es.indices.existsAlias({ name: postsIndex.alias }))
    ? Object.keys(await es.indices.getAlias({ name: postsIndex.alias }))
    : [];
  // Refresh stays on during the load. Switching it off (-1) would stall every write made meanwhile:
  // the write path indexes with refresh=wait_for, which on such an index waits for a manual refresh,
  // i.e. until the whole load is done. Loading was not faster with it off either (both measured:
  // bench/notes/code-figures.md).
  const index = await postsIndex.createVersionedIndex({ number_of_replicas: 0, auto_expand_replicas: 'false' });
  const created = Date.now();
  postsIndex.forgetTargets();
  deps.log?.info('reindex: created index', { index, previous });
  try {
    const mark = outbox.lastId();

    const total = postRepository.count();
    const progress = opts.progress?.(total) ?? silentProgress;
    progress.phase('loading');
    let posts = 0;
    // A couple of bulk requests in flight: SQLite reads and document building overlap indexing.
    const requests = new TaskGroup(opts.concurrency ?? 2);
    for (const records of postRepository.batches(batch)) {
      // The robust descriptors come with their batch (one statement), so the new index carries their terms.
      const robust = postRepository.robust.ofSeqs(records.map((r) => r.seq));
      await requests.start(async () => {
        await postsIndex.apply(
          records.map((r) => ({ postId: r.id, version: r.version, doc: toPostDocument(r, robust.get(r.seq)) })),
          { targets: [index], requestTimeout: BULK_LOAD_TIMEOUT_MS },
        );
        posts += records.length;
        progress.update(posts, Math.max(total, posts));
      });
    }
    await requests.all();
    progress.done();

    await es.indices.putSettings({ index, settings: replicaSettings(postsIndex.replicas) });
    // The first refresh after a load writes the last of it: as long as a bulk request may take.
    await es.indices.refresh({ index }, { requestTimeout: BULK_LOAD_TIMEOUT_MS });
    // Swap only once the new index is as safe as the old one: its replicas copied. A count the
    // cluster cannot place (2 replicas on 2 nodes) never turns green, so that only delays the swap.
    const wait = Math.max(1, Math.round((opts.replicaWaitMs ?? 60_000) / 1000));
    const health = await es.cluster.health(
      { index, wait_for_status: 'green', timeout: `${wait}s` },
      { requestTimeout: (wait + 10) * 1000, ignore: [408] },
    );
    if (health.timed_out)
      deps.log?.warn('reindex: the new index has no replica yet; swapping anyway', {
        index,
        status: health.status,
        replicas: postsIndex.replicas,
      });

    // Every list of write targets taken before the index existed has expired by now (a relay notes the
    // time before asking, posts-index.ts): a change the catch-up below does not see is written to both.
    const settle = created + (opts.settleMs ?? TARGETS_TTL_MS + 500) - Date.now();
    if (settle > 0) await sleep(settle);
    // Without a server, an index the pass above closed has been closed long enough by now to be deleted.
    await retirement.pass();
    // Changes that raced the load: each row re-reads its post from SQLite, so replaying is harmless.
    let caughtUp = 0;
    for (let after = mark, rows = outbox.since(after, 500); rows.length > 0; rows = outbox.since(after, 500)) {
      await postsIndex.apply(
        rows.map((r) => deps.relay.changeFor(r)),
        { targets: [index], requestTimeout: BULK_LOAD_TIMEOUT_MS },
      );
      caughtUp += rows.length;
      after = rows[rows.length - 1].id;
    }
    await es.indices.refresh({ index }, { requestTimeout: BULK_LOAD_TIMEOUT_MS });

    // Recorded before the swap: a kill right after it still leaves the previous indices to retire.
    retirement.schedule(previous);
    await es.indices.updateAliases({
      actions: [
        ...previous.map((old) => ({ remove: { index: old, alias: postsIndex.alias } })),
        { add: { index, alias: postsIndex.alias } },
      ],
    });
    retirement.swapped(previous);
    postsIndex.forgetTargets();
    deps.log?.info('reindex: alias swapped', { index, posts, caughtUp });
    if ((opts.retire ?? 'deferred') === 'now') await retirement.now(previous);

    // A bulk load leaves dozens of segments, and every term lookup pays per segment (the similar-image
    // segment terms most: hundreds per query). Merging to one in the background, once the new index
    // serves, made a 1M-post similar lookup several times faster (bench/notes/code-figures.md); later
    // writes add only small segments.
    if ((opts.merge ?? true) && (await mergesToOne(es, index))) {
      await es.indices
        .forcemerge({ index, max_num_segments: 1, wait_for_completion: false })
        .catch((err: unknown) =>
          deps.log?.warn('reindex: could not start the background merge', { index, err: (err as Error).message }),
        );
    }

    const retiring = new Set(retirement.pending());
    const strays = (await postsIndex.concreteIndices()).filter((name) => name !== index && !retiring.has(name));
    if (strays.length > 0)
      deps.log?.warn('reindex: other posts indices exist (an interrupted reindex?); writes still go to them', {
        strays,
      });
    return { previous, index, posts, caughtUp, ms: Date.now() - started };
  } catch (err) {
    // The alias still points at the previous index; drop the half-built one so writes stop going there.
    const aliased = await postsIndex.aliasTarget().catch(() => undefined);
    if (aliased !== index) await es.indices.delete({ index }, { ignore: [404] }).catch(() => undefined);
    if (aliased !== undefined && previous.includes(aliased)) retirement.cancel(previous);
    postsIndex.forgetTargets();
    throw err;
  }
}
