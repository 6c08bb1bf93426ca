import { toPostDocument } from './post-document.ts';
import type { IndexChange, PostsIndex } from './posts-index.ts';
import type { Logger } from '../log.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { Outbox, OutboxRow } from '../kernel/outbox.ts';
import { Loop } from '../util/loop.ts';

const BATCH = 500;
const IDLE_POLL_MS = 1000;
// The default of RELAY_MAX_BACKOFF_MS (docs/configuration.md).
const MAX_BACKOFF_MS = 15_000;
// The longest a write's response waits for its change to reach the index. A bulk request waits at
// most 5 s for a missing primary (posts-index.ts), but a write queued behind such a request would
// wait for two; past this bound it is answered anyway and the change stays with the relay.
const APPLY_NOW_MAX_WAIT_MS = 6000;

/**
 * Brings Elasticsearch in step with the outbox. Rows carry ids: each change indexes the post as
 * SQLite holds it now (or removes it when gone), under the post's version, so applying a row twice
 * or out of order does no harm. Failures back off and retry until Elasticsearch answers again.
 */
export class OutboxRelay {
  private readonly loop: Loop;
  private readonly nowQueue: { row: OutboxRow; resolve: (applied: boolean) => void }[] = [];
  private nowFlushing = false;
  /** When the last group of waiting writers went to the index (performance.now()). */
  private lastGroupAt = Number.NEGATIVE_INFINITY;
  private readonly groupGapMs: number;
  private readonly moreComing: () => boolean;
  /**
   * Rows a waiting writer's group has queued or is applying. The loop leaves them to it: under a
   * steady stream of writes there is nearly always one in flight, and applying it again costs a second
   * bulk request and, as its version has just landed (a conflict), a second refresh. A group that
   * fails (the client's request timeout bounds a hung one) hands its rows back (kick), and a crash
   * leaves them unindexed in the outbox for the next pass.
   */
  private readonly inFlight = new Set<number>();
  /** `groups`: the bulk requests (each with its refresh) made for writers waiting on their answer */
  readonly stats = { applied: 0, failed: 0, groups: 0 };

  constructor(
    private readonly outbox: Outbox,
    private readonly posts: PostRepository,
    private readonly index: PostsIndex,
    private readonly log: Logger,
    opts: {
      maxBackoffMs?: number;
      /** INDEX_GROUP_GAP_MS: the least time between two groups while more waiting writers are on their way */
      groupGapMs?: number;
      /** whether more writes that will wait for the index are on their way (uploads still in their image work) */
      moreComing?: () => boolean;
    } = {},
  ) {
    const maxBackoffMs = opts.maxBackoffMs ?? MAX_BACKOFF_MS;
    this.groupGapMs = opts.groupGapMs ?? 0;
    this.moreComing = opts.moreComing ?? (() => false);
    this.loop = new Loop({
      // A batch applied: look again at once; none pending: poll.
      pass: async () => ((await this.applyPending()) > 0 ? 0 : undefined),
      intervalMs: IDLE_POLL_MS,
      firstDelayMs: 0,
      backoffMs: (failures) => Math.min(maxBackoffMs, 250 * 2 ** Math.min(failures, 10)),
      log,
      failureMessage: 'relay could not reach the index; retrying',
      logEveryFailures: 10,
      recoveredMessage: 'relay caught up after failures',
    });
  }

  /** The index change that makes Elasticsearch agree with SQLite for this row's post. */
  changeFor(row: Pick<OutboxRow, 'postId' | 'postVersion'>): IndexChange {
    const post = this.posts.getById(row.postId);
    return post
      ? { postId: post.id, version: post.version, doc: toPostDocument(post, this.posts.robust.ofId(post.id)) }
      : { postId: row.postId, version: row.postVersion, doc: null };
  }

  /**
   * Applies rows and marks them indexed once searchable; throws if Elasticsearch refuses or is down.
   * Waiting for the refresh matters: near-duplicate checks trust the index for rows marked indexed.
   */
  async apply(rows: OutboxRow[], refresh: boolean | 'wait_for' = 'wait_for'): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.index.apply(
        rows.map((r) => this.changeFor(r)),
        { refresh },
      );
    } catch (err) {
      this.stats.failed += rows.length;
      this.outbox.markFailed(
        rows.map((r) => r.id),
        (err as Error).message,
      );
      throw err;
    }
    this.outbox.markIndexed(rows.map((r) => r.id));
    this.stats.applied += rows.length;
  }

  /**
   * The write path calls this so its response goes out once the change is searchable (or, while the
   * index cannot take it, after APPLY_NOW_MAX_WAIT_MS at most; resolves false then). Writes that
   * arrive together are group-committed: one bulk request with an explicit refresh for all of them,
   * while the next group gathers. An explicit refresh answers in milliseconds, where waiting for the
   * periodic one (refresh=wait_for) held every write for half the 1 s refresh interval on average.
   *
   * A refresh costs Elasticsearch far more CPU than indexing the document it makes searchable, and
   * concurrent uploads finish their image work one by one, so groups of one were the rule. So while
   * more waiting writes are on their way (`moreComing`: uploads still in their image work), a group
   * starts no sooner than `groupGapMs` after the previous one and takes every write that arrived
   * meanwhile: one refresh for several, each answer still after its post is searchable. A writer with
   * no company (one client writing one thing after another, an edit) is applied at once, as before.
   */
  applyNow(row: OutboxRow): Promise<boolean> {
    return new Promise((resolve) => {
      // The group still runs to the end (and marks the row indexed if it lands); only the wait is cut.
      const timer = setTimeout(() => resolve(false), APPLY_NOW_MAX_WAIT_MS);
      timer.unref();
      this.inFlight.add(row.id);
      this.nowQueue.push({
        row,
        resolve: (applied) => {
          clearTimeout(timer);
          resolve(applied);
        },
      });
      if (!this.nowFlushing) void this.flushNow();
    });
  }

  private async flushNow(): Promise<void> {
    this.nowFlushing = true;
    while (this.nowQueue.length > 0) {
      const wait = this.lastGroupAt + this.groupGapMs - performance.now();
      if (wait > 0 && this.nowQueue.length < BATCH && this.moreComing())
        await new Promise((resolve) => setTimeout(resolve, wait));
      this.lastGroupAt = performance.now();
      const group = this.nowQueue.splice(0, BATCH);
      this.stats.groups++;
      let ok = true;
      try {
        await this.apply(
          group.map((g) => g.row),
          true,
        );
      } catch (err) {
        ok = false;
        this.log.warn('index update deferred to the relay', {
          outboxIds: group.map((g) => g.row.id),
          err: (err as Error).message,
        });
      }
      for (const g of group) {
        this.inFlight.delete(g.row.id);
        g.resolve(ok);
      }
      if (!ok) this.kick();
    }
    this.nowFlushing = false;
  }

  /**
   * The unit of work's 'posts.changed': a waiting writer's rows are applied at once (group commit,
   * above); a background writer's join the next pass.
   */
  changed(rows: readonly OutboxRow[], awaited: boolean): Promise<unknown> | void {
    if (!awaited) return this.kick();
    return Promise.all(rows.map((row) => this.applyNow(row)));
  }

  start(): void {
    this.loop.start();
  }

  /** Resolves once the pass under way (if any) has ended. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Runs the loop soon (after a failure elsewhere, or new rows); waits out a back-off. */
  kick(): void {
    this.loop.kick();
  }

  /** Drains everything pending once; for the CLI and tests. */
  async drain(): Promise<number> {
    let total = 0;
    for (let rows = this.outbox.pending(BATCH); rows.length > 0; rows = this.outbox.pending(BATCH)) {
      await this.apply(rows);
      total += rows.length;
    }
    return total;
  }

  /** One pass of the loop: the next batch of pending rows no waiting writer is applying; how many there were. */
  private async applyPending(): Promise<number> {
    const rows = this.outbox
      .pending(BATCH + this.inFlight.size)
      .filter((r) => !this.inFlight.has(r.id))
      .slice(0, BATCH);
    await this.apply(rows);
    return rows.length;
  }
}
