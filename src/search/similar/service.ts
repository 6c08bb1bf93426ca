import type { HashPool } from '../../hashing/pool.ts';
import { decodeDescriptor } from '../../robust/format.ts';
import type { Descriptor } from '../../robust/rule.ts';
import type { PostRecord } from '../../kernel/post-record.ts';
import { toRobustItem, toSimilarItem, type RobustItem } from '../../kernel/views.ts';
import type { PostFrames } from '../../video/frame-table.ts';
import { type FrameHash, framesDistance } from '../../video/frames.ts';
import type { MovingPictures } from '../../video/moving-pictures.ts';
import { findWithin, findWithinDihedral, type SimilarMatch, type TransformedMatch } from './find-similar.ts';
import { findRobust } from './robust-lookup.ts';
import type { SearchDeps } from '../page-of-posts.ts';
import type { PostSimilarQuery, SimilarAnswer, SimilarQuery } from './schemas.ts';

/** The engine is reached through postsIndex's client. */
export interface SimilarDeps extends Omit<SearchDeps, 'es'> {
  hashPool: HashPool;
  /** docs/decisions.md §21: moving pictures asked about, and the `frames` matches */
  moving?: { pictures: MovingPictures; frames: PostFrames };
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
    const moving = await this.deps.moving?.pictures.read(file);
    if (moving) {
      // A moving picture asked about: its poster's hash, and its frames against the stored ones.
      const { poster, frames } = moving.hashes;
      const query = robust === '1' ? [poster, ...frames] : undefined;
      return this.answer(poster.hash, findWithin(postsIndex, poster.hash, maxDiff), undefined, limit, new Set(), query);
    }
    const dihedral = transforms === 'dihedral';
    const info = await hashPool.analyse(file, { dihedral });
    // Only after analyse accepted the bytes: the robust task decodes without the format checks.
    const descriptor = robust === '1' ? await hashPool.robust(file, 'urgent') : undefined;
    const found: Promise<(SimilarMatch | TransformedMatch)[]> = dihedral
      ? findWithinDihedral(postsIndex, info.dihedral!, maxDiff)
      : findWithin(postsIndex, info.hash, maxDiff);
    const frames = robust === '1' ? [{ at: 0, hash: info.hash, blank: false }] : undefined;
    return this.answer(info.hash, found, descriptor, limit, new Set(), frames);
  }

  /** The same for a stored post (its own hash and descriptor); the post itself is left out. */
  async findForPost(ref: string, { maxDiff, limit, robust, transforms }: PostSimilarQuery): Promise<SimilarAnswer> {
    const post = this.deps.findPost(ref);
    // A post whose descriptor is not computed yet (just uploaded, or the backfill has not reached it) has no robust
    // matches yet.
    const descriptor =
      robust === '1'
        ? (decodeDescriptor(this.deps.postRepository.robust.ofId(post.id)) ?? {
            quality: 0,
            hashes: new Uint32Array(0),
          })
        : undefined;
    const own = this.deps.moving?.frames.of([post.seq]).get(post.seq);
    const frames =
      robust === '1' ? (own ? [own.poster, ...own.frames] : [{ at: 0, hash: post.hash, blank: false }]) : undefined;
    const found =
      transforms === 'dihedral' ? this.dihedralOf(post, maxDiff) : findWithin(this.deps.postsIndex, post.hash, maxDiff);
    return this.answer(post.hash, found, descriptor, limit, new Set([post.id]), frames);
  }

  /**
   * docs/decisions.md §24: the stored hashes of the post's eight symmetries, never its file; a post without
   * them (a moving picture, or one the backfill has not reached) is looked up by its own hash, as `none`.
   */
  private async dihedralOf(post: PostRecord, maxDiff: number): Promise<TransformedMatch[]> {
    const stored = this.deps.postRepository.dihedral.of(post.seq);
    if (stored && stored !== 'none') return findWithinDihedral(this.deps.postsIndex, stored, maxDiff);
    const plain = await findWithin(this.deps.postsIndex, post.hash, maxDiff);
    return plain.map((m) => ({ ...m, transform: 'none' }));
  }

  private async answer(
    hash: string,
    lookup: Promise<(SimilarMatch | TransformedMatch)[]>,
    descriptor: Descriptor | undefined,
    limit: number,
    exclude: Set<string>,
    /** robust=1: the frames to find among moving pictures (`kind: "frames"`) */
    frames?: FrameHash[],
  ): Promise<SimilarAnswer> {
    const { postsIndex, postRepository, config } = this.deps;
    // The robust lookup needs nothing of the similar one: both go to the engine at once.
    const robustFound = descriptor ? findRobust(postsIndex, postRepository.robust, descriptor) : undefined;
    // Handled here too, so a similar lookup that fails first leaves no unhandled rejection behind.
    robustFound?.catch(() => {});
    const found = await lookup;
    const matches = found.filter((m) => !exclude.has(m.id)).slice(0, limit);
    const posts = new Map(postRepository.getManyById(matches.map((m) => m.id)).map((p) => [p.id, p]));
    const similar = matches.flatMap((m) => {
      const p = posts.get(m.id);
      if (!p) return [];
      return [toSimilarItem(p, config.mediaUrl, m.diff, 'transform' in m ? m.transform : undefined)];
    });
    if (!descriptor && !frames) return { hash, similar };
    // docs/decisions.md §16: robust matches not already in `similar`, best first, at most `limit`.
    const shown = new Set([...exclude, ...similar.map((s) => s.id)]);
    const byDescriptor = robustFound
      ? (await robustFound).map((m) => toRobustItem(m, config.mediaUrl, m.score, m.kind))
      : [];
    const byFrames = frames ? this.framesMatches(frames, shown) : [];
    const seen = new Set(byDescriptor.map((m) => m.id));
    const robust = [...byDescriptor, ...byFrames.filter((m) => !seen.has(m.id))]
      .filter((m) => !shown.has(m.id))
      .sort((a, b) => b.score - a.score)
      .slice(0, limit);
    return { hash, similar, robust };
  }

  /**
   * docs/decisions.md §21: the moving pictures one of whose frames is one of `query`'s. Their frame
   * hashes are read from SQLite (moving pictures are a small share of the posts), not the index.
   */
  private framesMatches(query: FrameHash[], shown: Set<string>): RobustItem[] {
    const table = this.deps.moving?.frames;
    if (!table) return [];
    const found: { id: string; diff: number }[] = [];
    for (const stored of table.all()) {
      if (shown.has(stored.id)) continue;
      const diff = framesDistance(query, stored.hashes);
      if (diff !== undefined) found.push({ id: stored.id, diff });
    }
    const posts = new Map(this.deps.postRepository.getManyById(found.map((f) => f.id)).map((p) => [p.id, p]));
    return found.flatMap((f) => {
      const p = posts.get(f.id);
      return p ? [toRobustItem(p, this.deps.config.mediaUrl, 1 - f.diff / 64, 'frames')] : [];
    });
  }
}
