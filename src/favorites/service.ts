import { AppError } from '../errors.ts';
import type { FavoriteRepository } from './favorite-repository.ts';
import { nowIso } from '../db/sqlite.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork, WriteTransaction } from '../kernel/unit-of-work.ts';

export interface FavoriteDeps {
  postRepository: PostRepository;
  /** the favorites table, written inside the unit of work's transaction */
  favorites: FavoriteRepository;
  unitOfWork: UnitOfWork;
  /** a post by UUID or number, or 404 (the posts feature's rule) */
  findPost: (ref: string) => PostRecord;
}

/**
 * Favorites (docs/decisions.md §14). A favorite is not a post edit: no version in the history, no webhook.
 * The count is kept by SQLite triggers in the favorite's own transaction; the search document
 * follows through the kernel's 'reindex' change, with the post's index version raised so the newer
 * document wins over any older one still on its way.
 */
export class FavoriteService {
  constructor(private readonly deps: FavoriteDeps) {}

  /** Idempotent: favoriting twice leaves one favorite (and may set or change its shortcut). */
  async favorite(userId: number, ref: string, shortcut: string | undefined): Promise<void> {
    const { unitOfWork } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    await unitOfWork.write((tx) => {
      if (shortcut !== undefined) {
        const holder = this.deps.favorites.shortcutOwner(userId, shortcut);
        if (holder !== undefined && holder !== seq)
          throw new AppError('conflict', `you already use the shortcut "${shortcut}" for another favorite`);
      }
      if (this.deps.favorites.put(userId, seq, shortcut, nowIso())) this.reindex(tx, seq);
    });
  }

  /** Idempotent: unfavoriting what is not a favorite is no error. */
  async unfavorite(userId: number, ref: string): Promise<void> {
    const { unitOfWork } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    await unitOfWork.write((tx) => {
      if (this.deps.favorites.remove(userId, seq)) this.reindex(tx, seq);
    });
  }

  private reindex(tx: WriteTransaction, seq: number): void {
    const { postRepository: posts } = this.deps;
    posts.bumpVersion(seq);
    const post = posts.getBySeq(seq);
    if (post) tx.reindexed(post);
  }

  /**
   * The merge hook (src/moderation/service.ts, FavoritesMover): runs inside the merge's unit of work.
   * `into`'s index version is raised with a 'reindex' row: the merge's own update row may carry no
   * new version (tags unchanged), and the relay, which reads the post as SQLite holds it when it
   * applies a row, then writes the moved favorites under the raised one.
   */
  moveFavorites(tx: WriteTransaction, fromPostId: string, intoPostId: string): void {
    const { postRepository: posts } = this.deps;
    const from = posts.getById(fromPostId);
    const into = posts.getById(intoPostId);
    if (!from || !into || from.favorites === 0) return;
    this.deps.favorites.move(from.seq, into.seq);
    this.reindex(tx, into.seq);
  }

  /** The caller's favorites, newest first. */
  list(userId: number, offset: number, limit: number): { count: number; posts: PostRecord[] } {
    const { postRepository: posts } = this.deps;
    const page = limit === 0 ? [] : this.deps.favorites.listOf(userId, offset, limit);
    return { count: this.deps.favorites.countOf(userId), posts: posts.getManyBySeq(page.map((f) => f.postSeq)) };
  }
}
