import type { HashPool } from '../../hashing/pool.ts';
import { decodeDescriptor } from '../../robust/format.ts';
import type { Descriptor } from '../../robust/rule.ts';
import type { PostRecord } from '../../kernel/post-record.ts';
import { toRobustItem, toSimilarItem } from '../../kernel/views.ts';
import { findWithin, findWithinDihedral, type SimilarMatch, type TransformedMatch } from './find-similar.ts';
import { findRobust } from './robust-lookup.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import type { PostSimilarQuery, SimilarAnswer, SimilarQuery } from './schemas.ts';

/** The engine is reached through postsIndex's client. */
export interface SimilarDeps extends Omit<SearchDeps, 'es'> {
  hashPool: HashPool;
  /** a post by UUID or number, or 404 (the posts feature's rule) */
  findPost: (ref: string) => PostRecord;
}

export type { SimilarAnswer } from './schemas.ts';

/** `/api/post/similar` (docs/decisions.md §5, §16): the posts whose image is near an upload's or a post's. */
export class SimilarService {
  constructor(private readonly deps: SimilarDeps) {}

  /** `file`: the uploaded image on disk. Posts deleted since the index saw them drop out. */
  async find(file: string, { maxDiff, limit, transforms, robust }: SimilarQuery): Promise<SimilarAnswer> {
    const { postsIndex, hashPool } = this.deps;
    const dihedral = transforms === 'dihedral';
    const info = await hashPool.analyse(file, { dihedral });
    // Only after analyse accepted the bytes: the robust task decodes without the format checks.
    const descriptor = robust === '1' ? await hashPool.robust(file, 'urgent') : undefined;
    const found: (SimilarMatch | TransformedMatch)[] = dihedral
      ? await findWithinDihedral(postsIndex, info.dihedral!, maxDiff)
      : await findWithin(postsIndex, info.hash, maxDiff);
    return this.answer(info.hash, found, descriptor, limit, new Set());
  }

  /** The same for a stored post (its own hash and descriptor); the post itself is left out. */
  async findForPost(ref: string, { maxDiff, limit, robust }: PostSimilarQuery): Promise<SimilarAnswer> {
    const post = this.deps.findPost(ref);
    const found = await findWithin(this.deps.postsIndex, post.hash, maxDiff);
    // A post whose descriptor is not computed yet (just uploaded, or the backfill has not reached it) has no robust
    // matches yet.
    const descriptor =
      robust === '1'
        ? (decodeDescriptor(this.deps.postRepository.robust.ofId(post.id)) ?? {
            quality: 0,
            hashes: new Uint32Array(0),
          })
        : undefined;
    return this.answer(post.hash, found, descriptor, limit, new Set([post.id]));
  }

  private async answer(
    hash: string,
    found: (SimilarMatch | TransformedMatch)[],
    descriptor: Descriptor | undefined,
    limit: number,
    exclude: Set<string>,
  ): Promise<SimilarAnswer> {
    const { postsIndex, postRepository, config } = this.deps;
    const matches = found.filter((m) => !exclude.has(m.id)).slice(0, limit);
    const posts = new Map(postRepository.getManyById(matches.map((m) => m.id)).map((p) => [p.id, p]));
    const similar = matches.flatMap((m) => {
      const p = posts.get(m.id);
      if (!p) return [];
      return [toSimilarItem(p, config.mediaUrl, m.diff, 'transform' in m ? m.transform : undefined)];
    });
    if (!descriptor) return { hash, similar };
    // docs/decisions.md §16: robust matches not already in `similar`, best first, at most `limit`.
    const shown = new Set([...exclude, ...similar.map((s) => s.id)]);
    const robust = (await findRobust(postsIndex, postRepository.robust, descriptor))
      .filter((m) => !shown.has(m.id))
      .slice(0, limit)
      .map((m) => toRobustItem(m, config.mediaUrl, m.score, m.kind));
    return { hash, similar, robust };
  }
}
