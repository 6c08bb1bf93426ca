import type { HashPool } from '../../hashing/pool.ts';
import { toSimilarItem, type SimilarItem } from '../../kernel/views.ts';
import { findWithin, findWithinDihedral, type SimilarMatch, type TransformedMatch } from './find-similar.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import type { SimilarQuery } from './schema.ts';

/** The engine is reached through postsIndex's client. */
export interface SimilarDeps extends Omit<SearchDeps, 'es'> {
  hashPool: HashPool;
}

/** `/api/post/similar` (spec §4.10, decisions §5): the posts whose image hash is near an upload's. */
export class SimilarService {
  constructor(private readonly deps: SimilarDeps) {}

  /** `file`: the uploaded image on disk. Posts deleted since the index saw them drop out. */
  async find(file: string, { maxDiff, limit, transforms }: SimilarQuery): Promise<{ hash: string; similar: SimilarItem[] }> {
    const { postsIndex, postRepository, hashPool, config } = this.deps;
    const dihedral = transforms === 'dihedral';
    const info = await hashPool.analyse(file, { dihedral });
    const found: (SimilarMatch | TransformedMatch)[] = dihedral
      ? await findWithinDihedral(postsIndex, info.dihedral!, maxDiff)
      : await findWithin(postsIndex, info.hash, maxDiff);
    const matches = found.slice(0, limit);
    const posts = new Map(postRepository.getManyById(matches.map((m) => m.id)).map((p) => [p.id, p]));
    const similar = matches.flatMap((m) => {
      const p = posts.get(m.id);
      if (!p) return [];
      return [toSimilarItem(p, config.mediaUrl, m.diff, 'transform' in m ? m.transform : undefined)];
    });
    return { hash: info.hash, similar };
  }
}
