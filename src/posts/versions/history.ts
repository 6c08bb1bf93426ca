import type { z } from 'zod';
import type { PostVersion } from '../../kernel/shapes.ts';
/**
 * Post history (docs/decisions.md §9): every change of a post's text, rating or tags is kept as a version
 * and can be undone. Versions are recorded by the commit step of each change (src/kernel/unit-of-work.ts),
 * in the change's own transaction; this reads them and reverts to them.
 */
import type { Db } from '../../db/sqlite.ts';
import { AppError } from '../../errors.ts';
import type { AuthUser } from '../../http/context.ts';
import { diffVersions, sortedTags, type VersionDiff } from '../../kernel/diff.ts';
import type { PostRecord } from '../../kernel/post-record.ts';
import type { VersionRepository } from '../../kernel/version-repository.ts';
import type { PostService } from '../service.ts';

export type VersionChanges = VersionDiff;

/**
 * A version as the API returns it: the stored one with its number as `version` and its tags sorted
 * (the parent is a UUID, which may have been deleted since). `changes` is absent on version 1.
 */
/** A version as the API shows it (declared once: src/kernel/shapes.ts). */
export type VersionView = z.infer<typeof PostVersion>;

export class PostHistory {
  constructor(private readonly deps: { db: Db; versions: VersionRepository; postService: PostService }) {}

  /** Newest first. */
  list(ref: string, offset: number, limit: number): { count: number; data: VersionView[] } {
    const { db, versions, postService } = this.deps;
    return db
      .transaction(() => {
        const post = postService.find(ref);
        // One older row than the page shows: the last one's changes are relative to it.
        const rows = limit === 0 ? [] : versions.page(post.seq, offset, limit + 1);
        const data = rows.slice(0, limit).map((v, i): VersionView => {
          const view: VersionView = {
            version: v.number,
            text: v.text,
            rating: v.rating,
            tags: sortedTags(v.tags),
            editor: v.editor,
            createdAt: v.createdAt,
            source: v.source,
            parentId: v.parentId,
          };
          const previous = rows[i + 1];
          if (previous) view.changes = diffVersions(previous, v);
          return view;
        });
        return { count: versions.count(post.seq), data };
      })
      .immediate();
  }

  /**
   * Sets text, rating, tags, source and parent to those of version `number`, as an update by
   * `initiator`. A parent deleted since is no parent (its delete cleared it); one that would now make
   * a cycle is 400, as on an edit.
   */
  async revert(ref: string, number: number, initiator: AuthUser): Promise<PostRecord> {
    const { versions, postService } = this.deps;
    const post = postService.find(ref);
    // Versions never change once written, so reading it outside the update's transaction is safe;
    // a delete in between makes the update itself answer 404.
    const target = versions.get(post.seq, number);
    if (!target) throw new AppError('not_found', 'version not found');
    const parentId = target.parentId !== null && postService.exists(target.parentId) ? target.parentId : null;
    return postService.update(
      post.id,
      { text: target.text, rating: target.rating, tags: target.tags, source: target.source, parentId },
      initiator,
    );
  }
}
