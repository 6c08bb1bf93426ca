import type { Db } from '../../src/db/sqlite.ts';
import type { PostRepository } from '../../src/kernel/post-repository.ts';
import type { UserNames } from '../../src/kernel/user-names.ts';
import { PoolRepository } from '../../src/pools/pool-repository.ts';
import type { Random } from './random.ts';

/**
 * Pools over the posts numbered [firstSeq, firstSeq + count) (docs/decisions.md §19): `pools` of them, each
 * of 1 to `maxSize` distinct posts in random order, with a creation entry in their history. Inside the
 * caller's unit of work, with no outbox rows: the caller reindexes afterwards.
 */
export function seedPools(
  db: Db,
  posts: PostRepository,
  users: UserNames,
  rnd: Random,
  opts: { pools: number; maxSize: number; firstSeq: number; count: number; at: string },
): void {
  const table = new PoolRepository(db, users);
  // Names are unique: a second seeding into the same database numbers on from the pools there.
  const before = table.count('');
  for (let p = before; p < before + opts.pools; p++) {
    const size = rnd.int(1, Math.min(opts.maxSize, opts.count));
    const seqs = new Set<number>();
    while (seqs.size < size) seqs.add(opts.firstSeq + rnd.int(0, opts.count - 1));
    const id = table.insert(`Pool ${p} ${rnd.pick(['comic', 'series', 'set', 'Chapter'])}`, '', opts.at);
    posts.pools.replace(id, [...seqs]);
    table.record(id, 'create', null, { name: { old: '', new: `Pool ${p}` } }, opts.at);
  }
}
