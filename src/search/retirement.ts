import type { Db } from '../db/sqlite.ts';
import { TARGETS_TTL_MS, type PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Logger } from '../log.ts';
import { RetiringIndexRepository } from './retiring-index-repository.ts';

/** Between the alias swap and closing the previous index: searches that resolved the alias just before finish. */
export const RETIRE_GRACE_MS = 1000;
/**
 * Between closing the previous index and deleting it: past every process's cached list of write
 * targets (closed indices are not listed), with room for a slow listing.
 */
export const RETIRE_CLOSED_MS = TARGETS_TTL_MS + 2000;

export interface RetirementPass {
  closed: string[];
  deleted: string[];
  /** when the next step falls due (ms since the epoch); undefined when nothing waits on time */
  nextAt?: number;
}

/**
 * Durable retirement of the posts indices `imgpost reindex` replaces (docs/decisions.md §13). The
 * reindex records its previous indices before the alias swap and returns right after it; the steps
 * that must wait are done by whoever runs a pass later (the server's loop, or the next reindex):
 *  1. once an index is out of the alias, note when (the reindex notes its own swap);
 *  2. a grace period later, close it. A process still holding it in its cached write targets has its
 *     write refused instead of it auto-creating a deleted index (dynamic mapping, and a stray write
 *     target for good); it lists its targets again (closed indices are not listed) and retries;
 *  3. once every cache has expired since the close, delete it.
 * Each step is recorded after it is done and is harmless to repeat, so a kill anywhere resumes.
 */
export class IndexRetirement {
  private readonly repo: RetiringIndexRepository;

  constructor(private readonly deps: { postsIndex: PostsIndex; db: Db; log?: Logger }) {
    this.repo = new RetiringIndexRepository(deps.db);
  }

  /** Before the swap: these indices go once the alias has left them (until then a pass skips them). */
  schedule(names: readonly string[]): void {
    this.repo.add(names);
  }

  /** Right after the swap: the grace period runs from now. */
  swapped(names: readonly string[], at = Date.now()): void {
    this.repo.unaliased(names, at);
  }

  /** The swap did not happen (the reindex failed before it): these still serve. */
  cancel(names: readonly string[]): void {
    this.repo.remove(names);
  }

  /** Indices waiting to be retired. */
  pending(): string[] {
    return this.repo.all().map((r) => r.name);
  }

  /**
   * Deletes these indices at once, with no grace or wait: only when nothing else searches or writes
   * (restore, seeding a corpus).
   */
  async now(names: readonly string[]): Promise<void> {
    if (names.length === 0) return;
    await this.deps.postsIndex.client.indices.delete({ index: names.join(','), ignore_unavailable: true });
    this.deps.postsIndex.forgetTargets();
    this.repo.remove(names);
  }

  /** Does every step that has fallen due; never waits for one that has not. */
  async pass(): Promise<RetirementPass> {
    const result: RetirementPass = { closed: [], deleted: [] };
    const rows = this.repo.all();
    if (rows.length === 0) return result;
    const { postsIndex, log } = this.deps;
    const es = postsIndex.client;
    const ours = `${postsIndex.alias}-v`;
    const served = new Set(
      Object.keys((await es.indices.getAlias({ name: postsIndex.alias }, { ignore: [404] })) ?? {}),
    );
    // A step not due yet says when it will be.
    const due = (at: number) => {
      if (Date.now() >= at) return true;
      result.nextAt = Math.min(result.nextAt ?? Infinity, at);
      return false;
    };
    for (const row of rows) {
      // Never another deployment's index (a row from elsewhere would be a bug, but deleting is final).
      if (!row.name.startsWith(ours)) {
        this.repo.remove([row.name]);
        continue;
      }
      if (served.has(row.name)) continue;
      let unaliasedAt = row.unaliasedAt;
      if (unaliasedAt === undefined) {
        unaliasedAt = Date.now();
        this.repo.unaliased([row.name], unaliasedAt);
      }
      let closedAt = row.closedAt;
      if (closedAt === undefined) {
        if (!due(unaliasedAt + RETIRE_GRACE_MS)) continue;
        await es.indices.close({ index: row.name, ignore_unavailable: true });
        postsIndex.forgetTargets();
        closedAt = Date.now();
        this.repo.closed(row.name, closedAt);
        result.closed.push(row.name);
        log?.info('retiring a previous posts index: closed', { index: row.name });
      }
      if (!due(closedAt + RETIRE_CLOSED_MS)) continue;
      await es.indices.delete({ index: row.name, ignore_unavailable: true });
      this.repo.remove([row.name]);
      result.deleted.push(row.name);
      log?.info('retired a previous posts index: deleted', { index: row.name });
    }
    return result;
  }

  /** Runs passes until nothing is left to retire but indices that still serve (the bench, outside its clock). */
  async settle(): Promise<void> {
    for (;;) {
      const { nextAt } = await this.pass();
      if (nextAt === undefined) return;
      await new Promise((r) => setTimeout(r, Math.max(20, nextAt - Date.now())));
    }
  }
}
