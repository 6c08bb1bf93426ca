/**
 * The one commit-a-change step. Every post write (upload, edit, revert, delete, import, account
 * removal, seeding) calls it inside the change's own transaction, after writing the post, and so
 * everything the change sets off commits or rolls back with it:
 *   - the outbox row (the relay brings the search index in step from it);
 *   - the version (docs/decisions.md §9): on create, and on an update whose diff is not empty;
 *   - the webhook deliveries (docs/decisions.md §8): only for create, update and delete made by someone
 *     (an initiator); an import or an account removal has none, and must not flood receivers;
 *   - the thumbnail job, on create (thumbnails are made after the response, docs/decisions.md §13).
 * A delete needs no version work: the post's versions cascade with it.
 */
import type { Db } from '../db/sqlite.ts';
import { diffMetadata, isEmptyDiff, metadataOf, sortedTags } from './diff.ts';
import { imageName } from './media-names.ts';
import { WebhookRepository } from '../webhooks/store/webhook-repository.ts';
import { Outbox, type OutboxEventKind, type OutboxPayload, type OutboxRow } from './outbox.ts';
import type { PostRecord } from './post-record.ts';
import type { NewPost, PostRepository } from './post-repository.ts';
import { ThumbnailQueue } from './thumbnail-jobs.ts';
import type { UserNames } from './user-names.ts';
import { VersionRepository } from './version-repository.ts';

/** Who made a change through the API; null for changes no request made (imports, account removal). */
export interface Initiator {
  id: number;
  name: string;
}

/** A post written in bulk, with its own last-change time and version. */
export type SeededPost = NewPost & { updatedAt: string; version: number };

export interface PostChangesDeps {
  db: Db;
  outbox: Outbox;
  versions: VersionRepository;
  webhooks: Pick<WebhookRepository, 'enqueue'>;
  thumbnails: ThumbnailQueue;
  /**
   * Called (on a later tick, once the change has committed) when deliveries were queued: wakes
   * the webhook dispatcher instead of waiting for its next poll.
   */
  onCommitted: () => void;
}

export class PostChanges {
  constructor(private readonly deps: PostChangesDeps) {}

  /** A new post, as `posts.getBySeq` reads it back after its insert. */
  created(post: PostRecord, initiator: Initiator | null): OutboxRow {
    this.inTransaction('PostChanges.created');
    this.deps.thumbnails.enqueue(post.id, imageName(post));
    this.recordVersion(post, initiator, post.createdAt);
    return this.append('create', { post }, initiator);
  }

  /**
   * An edit (a revert is one) from `before` to `after`. An edit that changed nothing still fires
   * its event, but is no new version.
   */
  updated(before: PostRecord, after: PostRecord, initiator: Initiator): OutboxRow {
    this.inTransaction('PostChanges.updated');
    const previous = metadataOf(before);
    if (!isEmptyDiff(diffMetadata(previous, metadataOf(after)))) this.recordVersion(after, initiator, after.updatedAt);
    return this.append('update', { post: after, previous: { ...previous, tags: [...previous.tags] } }, initiator);
  }

  /** A post just deleted; its row carries it as it was, one version on (so the index drops it). */
  deleted(post: PostRecord, initiator: Initiator): OutboxRow {
    return this.append('delete', { post }, initiator, post.version + 1);
  }

  /** A post changed by no one (its uploader's account went): the index must follow, nobody is told. */
  reindexed(post: PostRecord): OutboxRow {
    return this.append('reindex', { post }, null);
  }

  /**
   * Posts written in bulk (the seeder): inserted as given, with no outbox rows (the caller
   * reindexes afterwards), no deliveries and no thumbnails (they have no files); each gets its
   * version 1 from its stored state, as migration 007 gave older posts.
   */
  seeded(posts: Pick<PostRepository, 'insertSeeded'>, batch: Iterable<SeededPost>): void {
    this.inTransaction('PostChanges.seeded');
    posts.insertSeeded(batch);
    this.deps.versions.backfillFirstVersions();
  }

  private recordVersion(post: PostRecord, initiator: Initiator | null, createdAt: string): void {
    const { text, rating, tags } = metadataOf(post);
    this.deps.versions.append(post.seq, { text, rating, tags: sortedTags(tags), editorId: initiator?.id ?? null, createdAt });
  }

  private append(event: OutboxEventKind, payload: OutboxPayload, initiator: Initiator | null, postVersion?: number): OutboxRow {
    // Nothing may be written outside the change's transaction: checked before the first write.
    this.inTransaction(`PostChanges (${event})`);
    const row = this.deps.outbox.append(event, payload, initiator?.id ?? null, postVersion);
    if (row.event !== 'reindex' && initiator !== null) {
      const queued = this.deps.webhooks.enqueue({ outboxId: row.id, event: row.event, initiatorName: initiator.name, createdAt: row.createdAt });
      // better-sqlite3 transactions are synchronous: by the time this runs, the change has
      // committed (or rolled back, and then the dispatcher simply finds nothing new).
      if (queued > 0) setImmediate(this.deps.onCommitted);
    }
    return row;
  }

  private inTransaction(what: string): void {
    if (!this.deps.db.inTransaction) throw new Error(`${what} must run inside the change's transaction`);
  }
}

/**
 * The commit step with table objects of its own on `db`, for writers outside the roles' wiring
 * (the seeder, the CLI's jobs, tools). `onCommitted` defaults to nothing: those writers queue no
 * deliveries (no initiator), or leave their sending to the server's dispatcher.
 */
export const postChangesOn = (db: Db, users: UserNames, onCommitted: () => void = () => {}): PostChanges =>
  new PostChanges({
    db,
    outbox: new Outbox(db),
    versions: new VersionRepository(db, users),
    webhooks: new WebhookRepository(db),
    thumbnails: new ThumbnailQueue(db),
    onCommitted,
  });
