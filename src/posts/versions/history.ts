/**
 * Post history (decisions §9): every change of a post's text, rating or tags is kept as a version
 * and can be undone.
 *
 * Versions are written from the outbox: every post change appends its outbox row inside the
 * change's own transaction (create, update, import; a revert is an update), so recording a
 * version there puts it in that same transaction, and no write path can forget it. A delete
 * needs nothing: the rows cascade with the post.
 */
import type { Db } from '../../db/sqlite.ts';
import { AppError } from '../../errors.ts';
import type { AuthUser } from '../../http/context.ts';
import type { Outbox, OutboxRow } from '../../kernel/outbox.ts';
import type { PostRecord, Rating } from '../../kernel/post-record.ts';
import type { PostService } from '../service.ts';
import type { VersionRecord, VersionRepository } from '../../kernel/version-repository.ts';

interface Change<T> {
  old: T;
  new: T;
}

export interface VersionChanges {
  text?: Change<string>;
  tags?: Change<string[]>;
  rating?: Change<Rating>;
}

/** A version as the API returns it. `changes` is absent on version 1. */
export interface VersionView {
  version: number;
  text: string;
  rating: Rating;
  /** sorted */
  tags: string[];
  editor: { id: number; name: string } | null;
  createdAt: string;
  changes?: VersionChanges;
}

type Metadata = Pick<VersionRecord, 'text' | 'rating' | 'tags'>;

/** Tags are a set: compared as one, listed sorted (as in webhook Changes). */
const sortedTags = (names: Iterable<string>): string[] => [...new Set(names)].sort();

/** The fields that differ, each { old, new }; empty when nothing did. */
export function diffMetadata(before: Metadata, after: Metadata): VersionChanges {
  const changes: VersionChanges = {};
  if (before.text !== after.text) changes.text = { old: before.text, new: after.text };
  const oldTags = sortedTags(before.tags);
  const newTags = sortedTags(after.tags);
  if (oldTags.length !== newTags.length || oldTags.some((t, i) => t !== newTags[i])) changes.tags = { old: oldTags, new: newTags };
  if (before.rating !== after.rating) changes.rating = { old: before.rating, new: after.rating };
  return changes;
}

const metadataOf = (post: PostRecord): Metadata => ({ text: post.text, rating: post.rating, tags: post.tags.map((t) => t.name) });

export class PostHistory {
  constructor(private readonly deps: { db: Db; versions: VersionRepository; postService: PostService }) {}

  /** Records versions from now on; call once, before any write. */
  attachTo(outbox: Outbox): void {
    outbox.subscribe((row) => this.record(row));
  }

  private record(row: OutboxRow): void {
    const { post, previous } = row.payload;
    const after = metadataOf(post);
    const append = (createdAt: string) =>
      this.deps.versions.append(post.seq, { ...after, tags: sortedTags(after.tags), editorId: row.initiatorId, createdAt });
    if (row.event === 'create') append(post.createdAt);
    // An update that changed nothing still fires its event, but is no new version.
    else if (row.event === 'update' && previous && Object.keys(diffMetadata(previous, after)).length > 0) append(post.updatedAt);
  }

  /** Newest first. */
  list(ref: string, offset: number, limit: number): { count: number; data: VersionView[] } {
    const { db, versions, postService } = this.deps;
    return db.transaction(() => {
      const post = postService.find(ref);
      // One older row than the page shows: the last one's changes are relative to it.
      const rows = limit === 0 ? [] : versions.page(post.seq, offset, limit + 1);
      const data = rows.slice(0, limit).map((v, i): VersionView => {
        const view: VersionView = { version: v.number, text: v.text, rating: v.rating, tags: sortedTags(v.tags), editor: v.editor, createdAt: v.createdAt };
        const previous = rows[i + 1];
        if (previous) view.changes = diffMetadata(previous, v);
        return view;
      });
      return { count: versions.count(post.seq), data };
    }).immediate();
  }

  /** Sets text, rating and tags to those of version `number`, as an update by `initiator`. */
  async revert(ref: string, number: number, initiator: AuthUser): Promise<PostRecord> {
    const { versions, postService } = this.deps;
    const post = postService.find(ref);
    // Versions never change once written, so reading it outside the update's transaction is safe;
    // a delete in between makes the update itself answer 404.
    const target = versions.get(post.seq, number);
    if (!target) throw new AppError('not_found', 'version not found');
    return postService.update(post.id, { text: target.text, rating: target.rating, tags: target.tags }, initiator);
  }
}
