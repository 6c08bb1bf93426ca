import type { Transform } from '../../hashing/dihedral.ts';
import type { HashPool } from '../../hashing/pool.ts';
import { imageName, imageUrl } from '../../kernel/media-names.ts';
import { findWithin, findWithinDihedral, type SimilarMatch, type TransformedMatch } from './find-similar.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import type { SimilarQuery } from './schema.ts';

export interface SimilarItem {
  id: string;
  image: string;
  imageURL: string;
  diff: number;
  /** only when the request asked for the dihedral transforms */
  transform?: Transform;
}

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
      const item: SimilarItem = { id: p.id, image: imageName(p), imageURL: imageUrl(config.mediaUrl, p), diff: m.diff };
      return ['transform' in m ? { ...item, transform: m.transform } : item];
    });
    return { hash: info.hash, similar };
  }
}
