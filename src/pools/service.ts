import type { Db } from '../db/sqlite.ts';
import { AppError, invalid } from '../errors.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { Initiator, UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';
import { UUID_PATTERN } from '../util/uuid.ts';
import type { PoolChanges, PoolChangeRecord, PoolRecord, PoolRepository } from './pool-repository.ts';
import { MAX_POOL_POSTS, type CreatePool, type PatchPool, type PoolDetail, type PoolPlaceView } from './schemas.ts';

export type { PoolDetail, PoolPlaceView } from './schemas.ts';

const notFound = () => new AppError('not_found', 'pool not found');
const now = () => new Date().toISOString();

/**
 * Pools (docs/decisions.md §19): ordered collections edited by the community. Every change is one
 * unit of work: the pool rows, its history entry, and a 'reindex' change (with the post's index
 * version raised) for every post whose place changed, since a post's pools and positions are in its
 * search document. A reorder of 1,000 posts is thus ONE transaction: after a crash the index is
 * brought to the old or the new order, never a mix.
 */
export class PoolService {
  constructor(
    private readonly deps: { db: Db; posts: PostRepository; pools: PoolRepository; unitOfWork: UnitOfWork },
  ) {}

  private get membership() {
    return this.deps.posts.pools;
  }

  async create(input: CreatePool, by: Initiator): Promise<PoolDetail> {
    const { pools, unitOfWork } = this.deps;
    const id = await unitOfWork.write((tx) => {
      this.refuseTakenName(input.name);
      const seqs = this.seqsNamed(input.postIds ?? []);
      const at = now();
      const poolId = pools.insert(input.name, input.description ?? '', at);
      this.membership.replace(poolId, seqs);
      this.reindex(tx, seqs);
      pools.record(
        poolId,
        'create',
        by.id,
        {
          name: { old: '', new: input.name },
          description: { old: '', new: input.description ?? '' },
          postIds: { old: [], new: this.idsOf(seqs) },
        },
        at,
      );
      return poolId;
    });
    return this.get(id);
  }

  list(prefix: string, offset: number, limit: number): { count: number; data: PoolRecord[] } {
    const { db, pools } = this.deps;
    return db.transaction(() => ({
      count: pools.count(prefix),
      data: limit === 0 ? [] : pools.page(prefix, offset, limit),
    }))();
  }

  get(id: number): PoolDetail {
    return this.deps.db.transaction(() => {
      const pool = this.deps.pools.get(id);
      if (!pool) throw notFound();
      return { ...pool, postIds: this.idsOf(this.membership.orderOf(id).map((p) => p.seq)) };
    })();
  }

  /** Replaces the fields sent; `postIds` replaces the whole order. */
  async patch(id: number, input: PatchPool, by: Initiator): Promise<PoolDetail> {
    const { pools, unitOfWork } = this.deps;
    await unitOfWork.write((tx) => {
      const pool = pools.get(id);
      if (!pool) throw notFound();
      const changes: PoolChanges = {};
      if (input.name !== undefined && input.name !== pool.name) {
        this.refuseTakenName(input.name, id);
        changes.name = { old: pool.name, new: input.name };
      }
      if (input.description !== undefined && input.description !== pool.description)
        changes.description = { old: pool.description, new: input.description };
      if (input.postIds !== undefined) {
        const before = this.membership.orderOf(id);
        const seqs = this.seqsNamed(input.postIds);
        const oldPlace = new Map(before.map((p) => [p.seq, p.position]));
        const newPlace = new Map(seqs.map((seq, i) => [seq, i]));
        // Only the posts whose place changed (moved, added, removed) get a new search document.
        const moved = [...new Set([...oldPlace.keys(), ...seqs])].filter((s) => oldPlace.get(s) !== newPlace.get(s));
        if (moved.length > 0) {
          this.membership.replace(id, seqs);
          this.reindex(tx, moved);
          changes.postIds = { old: this.idsOf(before.map((p) => p.seq)), new: this.idsOf(seqs) };
        }
      }
      if (Object.keys(changes).length === 0) return;
      const at = now();
      pools.update(id, {
        name: changes.name?.new ?? pool.name,
        description: changes.description?.new ?? pool.description,
        updatedAt: at,
      });
      pools.record(id, 'edit', by.id, changes, at);
    });
    return this.get(id);
  }

  async delete(id: number, by: Initiator): Promise<void> {
    const { pools, unitOfWork } = this.deps;
    await unitOfWork.write((tx) => {
      const pool = pools.get(id);
      if (!pool) throw notFound();
      const seqs = this.membership.orderOf(id).map((p) => p.seq);
      const postIds = this.idsOf(seqs);
      pools.delete(id);
      this.reindex(tx, seqs);
      const changes = {
        name: { old: pool.name, new: '' },
        description: { old: pool.description, new: '' },
        postIds: { old: postIds, new: [] },
      };
      pools.record(id, 'delete', by.id, changes, now());
    });
  }

  /** Newest first; a deleted pool's history stays readable. */
  history(id: number, offset: number, limit: number): { count: number; data: PoolChangeRecord[] } {
    const { db, pools } = this.deps;
    return db.transaction(() => {
      const count = pools.historyCount(id);
      if (count === 0) throw notFound();
      return { count, data: limit === 0 ? [] : pools.history(id, offset, limit) };
    })();
  }

  /**
   * An imported pool (docs/decisions.md §22), by nobody: the pool of that name (created when none exists)
   * holds `seqs` first, in their order, then the posts it held besides them. Nothing changes when it holds
   * them so already, so an import run again writes nothing. Returns the pool's id.
   */
  async importOrder(name: string, description: string, seqs: readonly number[]): Promise<number> {
    const { pools, unitOfWork } = this.deps;
    return unitOfWork.write((tx) => {
      const at = now();
      const id = pools.idNamed(name);
      if (id === undefined) {
        if (seqs.length > MAX_POOL_POSTS) throw invalid(['postIds'], `a pool holds at most ${MAX_POOL_POSTS} posts`);
        const poolId = pools.insert(name, description, at);
        this.membership.replace(poolId, [...seqs]);
        this.reindex(tx, seqs);
        const changes = {
          name: { old: '', new: name },
          description: { old: '', new: description },
          postIds: { old: [], new: this.idsOf(seqs) },
        };
        pools.record(poolId, 'create', null, changes, at);
        return poolId;
      }
      const before = this.membership.orderOf(id).map((p) => p.seq);
      const wanted = new Set(seqs);
      const after = [...seqs, ...before.filter((s) => !wanted.has(s))];
      const moved = after.filter((s, i) => before[i] !== s);
      if (moved.length === 0 && after.length === before.length) return id;
      if (after.length > MAX_POOL_POSTS) throw invalid(['postIds'], `a pool holds at most ${MAX_POOL_POSTS} posts`);
      this.membership.replace(id, after);
      this.reindex(tx, moved);
      pools.touch(id, at);
      pools.record(id, 'edit', null, { postIds: { old: this.idsOf(before), new: this.idsOf(after) } }, at);
      return id;
    });
  }

  /** The pools `post` is in, each with its neighbours in the pool's order. */
  placesOf(post: PostRecord): PoolPlaceView[] {
    return this.deps.db.transaction(() =>
      this.deps.pools.getMany(post.pools.map((p) => p.pool)).map((pool) => {
        const order = this.membership.orderOf(pool.id).map((p) => p.seq);
        const i = order.indexOf(post.seq);
        const [previous, next] = [order[i - 1], order[i + 1]].map((s) =>
          s === undefined ? null : (this.deps.posts.links.idsOfSeqs([s]).get(s) ?? null),
        );
        return { pool, position: i, previous, next };
      }),
    )();
  }

  /** A post's delete (inside its unit of work): the post leaves every pool, one history entry each. */
  removeDeletedPost(tx: WriteTransaction, post: PostRecord, by: Initiator): void {
    for (const poolId of this.membership.poolsOf(post.seq)) {
      const before = this.membership.orderOf(poolId).map((p) => p.seq);
      this.membership.remove(poolId, post.seq);
      this.recordOrder(
        poolId,
        'post-deleted',
        by,
        before,
        before.filter((s) => s !== post.seq),
      );
    }
  }

  /**
   * A merge (docs/decisions.md §15, inside its unit of work, before `from` is deleted): `into` takes
   * `from`'s place in each of its pools (leaving its own place there, if it had one).
   */
  replaceMergedPost(tx: WriteTransaction, from: PostRecord, into: PostRecord, by: Initiator): void {
    let moved = false;
    for (const poolId of this.membership.poolsOf(from.seq)) {
      const order = this.membership.orderOf(poolId);
      const before = order.map((p) => p.seq);
      const place = order.find((p) => p.seq === from.seq)!.position;
      this.membership.remove(poolId, from.seq);
      this.membership.remove(poolId, into.seq);
      this.membership.put(poolId, into.seq, place);
      const after = before.filter((s) => s !== into.seq).map((s) => (s === from.seq ? into.seq : s));
      this.recordOrder(poolId, 'post-merged', by, before, after);
      moved = true;
    }
    if (moved) this.reindex(tx, [into.seq]);
  }

  private recordOrder(poolId: number, action: 'post-deleted' | 'post-merged', by: Initiator, a: number[], b: number[]) {
    const at = now();
    this.deps.pools.touch(poolId, at);
    this.deps.pools.record(poolId, action, by.id, { postIds: { old: this.idsOf(a), new: this.idsOf(b) } }, at);
  }

  /** A 'reindex' change for each post, its index version raised so the new document wins. */
  private reindex(tx: WriteTransaction, seqs: readonly number[]): void {
    const { posts } = this.deps;
    for (const seq of seqs) posts.bumpVersion(seq);
    for (const post of posts.getManyBySeq([...seqs])) tx.reindexed(post);
  }

  private refuseTakenName(name: string, self?: number): void {
    const holder = this.deps.pools.idNamed(name);
    if (holder !== undefined && holder !== self)
      throw new AppError('conflict', `a pool named "${name}" exists already (names are unique in any case)`);
  }

  /** The posts `refs` name (UUIDs or numbers), in order; 400 for an unknown post or one named twice. */
  private seqsNamed(refs: readonly string[]): number[] {
    const links = this.deps.posts.links;
    const byId = links.seqsOfIds(refs.filter((r) => UUID_PATTERN.test(r)).map((r) => r.toLowerCase()));
    const numbers = refs.filter((r) => /^[1-9]\d{0,15}$/.test(r)).map(Number);
    const existing = links.idsOfSeqs(numbers);
    const seen = new Set<number>();
    return refs.map((ref, i) => {
      const seq = UUID_PATTERN.test(ref)
        ? byId.get(ref.toLowerCase())
        : existing.has(Number(ref))
          ? Number(ref)
          : undefined;
      if (seq === undefined) throw invalid(['postIds', i], `unknown post: ${ref}`);
      if (seen.has(seq)) throw invalid(['postIds', i], `post ${ref} is listed twice; a pool holds each post once`);
      seen.add(seq);
      return seq;
    });
  }

  private idsOf(seqs: readonly number[]): string[] {
    const ids = this.deps.posts.links.idsOfSeqs(seqs);
    return seqs.flatMap((s) => ids.get(s) ?? []);
  }
}
