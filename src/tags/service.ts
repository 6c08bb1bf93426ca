import type { Db } from '../db/sqlite.ts';
import { AppError } from '../errors.ts';
import type { TagCount, TagRepository } from '../kernel/tag-repository.ts';

/** Tags with their post counts (docs/decisions.md §10); counts are exact once a write has answered. */
export class TagService {
  constructor(private readonly deps: { db: Db; tags: TagRepository }) {}

  list(prefix: string, offset: number, limit: number): { count: number; data: TagCount[] } {
    const { db, tags } = this.deps;
    // One read transaction: the page and the count see the same writes.
    return db.transaction(() => ({
      count: tags.count(prefix),
      data: limit === 0 ? [] : tags.page(prefix, offset, limit),
    }))();
  }

  get(name: string): TagCount {
    const tag = this.deps.tags.get(name);
    if (!tag) throw new AppError('not_found', 'tag not found');
    return tag;
  }
}
