/**
 * Building a section's corpus: its size from the run's flags, accounts that clients act as, and the
 * one reindex after seeding. Shared by the bench sections (community, conversation, organization,
 * booru) and bench/favorites.ts.
 */
import { accessKeyDigest, generateAccessKey } from '../../src/accounts/access-keys.ts';
import type { Db } from '../../src/db/sqlite.ts';
import type { ToolJob } from '../../src/roles/jobs.ts';
import { reindex } from '../../src/search/reindex.ts';
import type { Random } from '../../tools/seed/random.ts';
import { sectionParams } from '../params.ts';
import type { SectionContext } from './section.ts';

/**
 * A section's scale: `--sizes`' first entry or 1M posts (20k with --quick), the one-client samples,
 * the length of an 8-client window (ms) and the corpus as the rows name it (`1M`, `20k`).
 */
export function sectionScale({ quick, sizes }: Pick<SectionContext, 'quick' | 'sizes'>) {
  const scale = sectionParams(quick).scale;
  const posts = sizes?.[0] ?? scale.posts;
  const { samples, ms } = scale;
  const size = posts >= 1_000_000 ? `${posts / 1_000_000}M` : `${posts / 1000}k`;
  return { posts, samples, ms, size };
}

/** `count` accounts `${prefix}0`, `${prefix}1`, … with access keys and `permission`, in one transaction. */
export function keyedAccounts(
  services: Pick<ToolJob, 'db' | 'accounts'>,
  prefix: string,
  count: number,
  permission: number,
): { id: number; name: string; key: string }[] {
  return services.db.transaction(() =>
    Array.from({ length: count }, (_, i) => {
      const key = generateAccessKey();
      const name = `${prefix}${i}`;
      const id = services.accounts.users.insert({
        name,
        email: null,
        passwordHash: 'none',
        accessKey: key,
        accessKeyDigest: accessKeyDigest(key),
        permission,
        createdAt: new Date().toISOString(),
      });
      return { id, name, key };
    }),
  )();
}

/**
 * Each account favorites 1-60 of the posts `seqs`, popular ones more often (`rnd.skewed`), written
 * straight into SQLite through the count triggers in one transaction: the corpus, not a figure. Returns
 * how many favorites were written.
 */
export function skewedFavorites(
  db: Db,
  accounts: readonly { id: number }[],
  seqs: readonly number[],
  rnd: Random,
): number {
  let favorites = 0;
  db.transaction(() => {
    const fav = db.prepare('INSERT OR IGNORE INTO favorites (user_id, post_seq, created_at) VALUES (?, ?, ?)');
    for (const { id } of accounts) {
      for (let k = rnd.int(1, 60); k > 0; k--)
        favorites += fav.run(
          id,
          seqs[rnd.skewed(seqs.length, 3)],
          new Date(Date.UTC(2024, 0, 1, 0, 0, favorites)).toISOString(),
        ).changes;
    }
  })();
  return favorites;
}

/** The one reindex after seeding, with no waits between its steps (nothing else is writing). */
export const reindexCorpus = (services: Parameters<typeof reindex>[0]): ReturnType<typeof reindex> =>
  reindex(services, { settleMs: 0, retire: 'now', merge: false });
