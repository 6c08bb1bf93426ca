import { AppError } from '../errors.ts';
import type { Db } from '../db/sqlite.ts';
import { nowIso } from '../db/sqlite.ts';
import type { PostChanges } from '../kernel/commit.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { OutboxRelay } from '../outbox/relay.ts';

export interface FavoriteDeps {
  db: Db;
  postRepository: PostRepository;
  changes: PostChanges;
  relay: Pick<OutboxRelay, 'applyNow'>;
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
    const { db, postRepository: posts } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    const row = db.transaction((): OutboxRow | undefined => {
      if (shortcut !== undefined) {
        const holder = posts.favorites.shortcutOwner(userId, shortcut);
        if (holder !== undefined && holder !== seq) throw new AppError('conflict', `you already use the shortcut "${shortcut}" for another favorite`);
      }
      return posts.favorites.put(userId, seq, shortcut, nowIso()) ? this.reindex(seq) : undefined;
    }).immediate();
    if (row) await this.deps.relay.applyNow(row);
  }

  /** Idempotent: unfavoriting what is not a favorite is no error. */
  async unfavorite(userId: number, ref: string): Promise<void> {
    const { db, postRepository: posts } = this.deps;
    const seq = this.deps.findPost(ref).seq;
    const row = db.transaction(() => (posts.favorites.remove(userId, seq) ? this.reindex(seq) : undefined)).immediate();
    if (row) await this.deps.relay.applyNow(row);
  }

  private reindex(seq: number): OutboxRow | undefined {
    const { postRepository: posts, changes } = this.deps;
    posts.bumpVersion(seq);
    const post = posts.getBySeq(seq);
    return post && changes.reindexed(post);
  }

  /**
   * The merge hook (src/moderation/service.ts, FavoritesMover): runs inside the merge's transaction.
   * `into`'s index version is raised with a 'reindex' row: the merge's own update row may carry no
   * new version (tags unchanged), and the relay, which reads the post as SQLite holds it when it
   * applies a row, then writes the moved favorites under the raised one.
   */
  moveFavorites(fromPostId: string, intoPostId: string): void {
    const { postRepository: posts } = this.deps;
    const from = posts.getById(fromPostId);
    const into = posts.getById(intoPostId);
    if (!from || !into || from.favorites === 0) return;
    posts.favorites.move(from.seq, into.seq);
    this.reindex(into.seq);
  }

  /** The caller's favorites, newest first. */
  list(userId: number, offset: number, limit: number): { count: number; posts: PostRecord[] } {
    const { postRepository: posts } = this.deps;
    const page = limit === 0 ? [] : posts.favorites.listOf(userId, offset, limit);
    return { count: posts.favorites.countOf(userId), posts: posts.getManyBySeq(page.map((f) => f.postSeq)) };
  }
}
