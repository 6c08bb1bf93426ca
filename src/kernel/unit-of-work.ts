/**
 * The unit of work: the one way a post changes. Every post write (upload, edit, revert, delete,
 * merge, import, retagging, a favorite, an account's removal, a robust descriptor, verify's repair,
 * seeding) runs inside `write` (or `writeInBackground`), which
 *   1. opens one BEGIN IMMEDIATE transaction (a writer in another process waits for it, so checks
 *      made inside it see every committed post);
 *   2. runs the caller's work, which records each post change with its commit step
 *      (`WriteTransaction`): the outbox row (the relay brings the search index in step from it), the
 *      version (docs/decisions.md §9: on create, and on an update whose diff is not empty), the
 *      webhook deliveries (§8: only for changes made by someone), the thumbnail job (on create);
 *   3. commits, and only then publishes the kernel events (events.ts) of what the work set off.
 * Callers never wake the relay, the dispatcher, the thumbnailer or the descriptor runner themselves:
 * src/roles/wiring.ts subscribes them to the events.
 */
import type { Db } from '../db/sqlite.ts';
import { WebhookRepository } from '../webhook-store/webhook-repository.ts';
import { diffVersions, isEmptyDiff, metadataOf, sortedTags, versionedFieldsOf } from './diff.ts';
import { EVENT_ORDER, KernelEvents, type KernelEventMap } from './events.ts';
import { imageName } from './media-names.ts';
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

export interface UnitOfWorkDeps {
  db: Db;
  outbox: Outbox;
  versions: VersionRepository;
  webhooks: Pick<WebhookRepository, 'enqueue'>;
  thumbnails: ThumbnailQueue;
  events: KernelEvents;
}

/** What one unit's work set off, gathered while its transaction runs, published after it commits. */
interface SetOff {
  rows: OutboxRow[];
  deliveries: number;
  thumbnails: string[];
  descriptors: string[];
  images: string[];
}

/**
 * The commit step of one unit of work, handed to its work: each method records one post change in
 * the unit's transaction, so everything the change sets off commits or rolls back with it.
 */
export class WriteTransaction {
  /** @internal made by UnitOfWork only */
  constructor(
    private readonly deps: UnitOfWorkDeps,
    private readonly setOff: SetOff,
  ) {}

  /**
   * A new post, as `posts.getBySeq` reads it back after its insert. `made`: what its upload already
   * made (thumbnails in the store, descriptor stored); the rest is queued for the background.
   */
  created(
    post: PostRecord,
    initiator: Initiator | null,
    made: { thumbnails?: boolean; descriptor?: boolean } = {},
  ): OutboxRow {
    this.inTransaction('created');
    if (!made.thumbnails) {
      this.deps.thumbnails.enqueue(post.id, imageName(post));
      this.setOff.thumbnails.push(post.id);
    }
    if (!made.descriptor) this.setOff.descriptors.push(post.id);
    this.recordVersion(post, initiator, post.createdAt);
    return this.append('create', { post }, initiator);
  }

  /**
   * An edit (a revert is one) from `before` to `after`. An edit that changed nothing still fires
   * its event, but is no new version. The webhook's Changes are the metadata's; a version also
   * records a change of source or parent (docs/decisions.md §19). No initiator: an import's change
   * (docs/decisions.md §22), a version by nobody.
   */
  updated(before: PostRecord, after: PostRecord, initiator: Initiator | null): OutboxRow {
    this.inTransaction('updated');
    const previous = metadataOf(before);
    // The history's diff: a source or parent change is a version too (docs/decisions.md §19).
    if (!isEmptyDiff(diffVersions(versionedFieldsOf(before), versionedFieldsOf(after))))
      this.recordVersion(after, initiator, after.updatedAt);
    return this.append('update', { post: after, previous: { ...previous, tags: [...previous.tags] } }, initiator);
  }

  /**
   * A post just deleted; its row carries it as it was, one version on (so the index drops it). Its
   * image files (already journaled for removal by the caller) are removed once the unit commits.
   */
  deleted(post: PostRecord, initiator: Initiator): OutboxRow {
    this.setOff.images.push(imageName(post));
    return this.append('delete', { post }, initiator, post.version + 1);
  }

  /**
   * A post changed by no one (its uploader's account went, a favorite, a descriptor): the index must follow, nobody is
   * told.
   */
  reindexed(post: PostRecord): OutboxRow {
    return this.append('reindex', { post }, null);
  }

  /**
   * Posts written in bulk (the seeder): inserted as given, with no outbox rows (the caller
   * reindexes afterwards), no deliveries and no thumbnails (they have no files); each gets its
   * version 1 from its stored state, as migration 007 gave older posts.
   */
  seeded(posts: Pick<PostRepository, 'insertSeeded'>, batch: Iterable<SeededPost>): void {
    this.inTransaction('seeded');
    posts.insertSeeded(batch);
    this.deps.versions.backfillFirstVersions();
  }

  private recordVersion(post: PostRecord, initiator: Initiator | null, createdAt: string): void {
    const { text, rating, tags, source, parentId } = versionedFieldsOf(post);
    this.deps.versions.append(post.seq, {
      text,
      rating,
      tags: sortedTags(tags),
      source,
      parentId,
      editorId: initiator?.id ?? null,
      createdAt,
    });
  }

  private append(
    event: OutboxEventKind,
    payload: OutboxPayload,
    initiator: Initiator | null,
    postVersion?: number,
  ): OutboxRow {
    // Nothing may be written outside the unit's transaction: checked before the first write.
    this.inTransaction(event);
    const row = this.deps.outbox.append(event, payload, initiator?.id ?? null, postVersion);
    this.setOff.rows.push(row);
    if (row.event !== 'reindex' && initiator !== null) {
      this.setOff.deliveries += this.deps.webhooks.enqueue({
        outboxId: row.id,
        event: row.event,
        initiatorName: initiator.name,
        createdAt: row.createdAt,
      });
    }
    return row;
  }

  private inTransaction(what: string): void {
    if (!this.deps.db.inTransaction)
      throw new Error(`WriteTransaction.${what} must run inside the unit of work's transaction`);
  }
}

export class UnitOfWork {
  constructor(private readonly deps: UnitOfWorkDeps) {}

  /** Where the unit's events are published: the composition root subscribes its reactions here. */
  get events(): KernelEvents {
    return this.deps.events;
  }

  /**
   * Runs `work` as one unit and resolves once its reactions have: the changes are searchable (or,
   * while the index is down, handed to the relay), deleted files removed. For requests, which answer
   * with what they wrote.
   */
  async write<T>(work: (tx: WriteTransaction) => T): Promise<T> {
    const { result, setOff } = this.commit(work);
    await this.publish(setOff, true);
    return result;
  }

  /**
   * Runs `work` as one unit and returns once it has committed; its reactions go on without it (the
   * relay's next pass picks its changes up). For background writers (the implication runner, the
   * descriptor runner) and synchronous ones (account removal, alias retagging), which wait for nothing.
   */
  writeInBackground<T>(work: (tx: WriteTransaction) => T): T {
    const { result, setOff } = this.commit(work);
    void this.publish(setOff, false);
    return result;
  }

  private commit<T>(work: (tx: WriteTransaction) => T): { result: T; setOff: SetOff } {
    if (this.deps.db.inTransaction) throw new Error('a unit of work cannot run inside another transaction');
    const setOff: SetOff = { rows: [], deliveries: 0, thumbnails: [], descriptors: [], images: [] };
    const result = this.deps.db.transaction(() => work(new WriteTransaction(this.deps, setOff))).immediate();
    return { result, setOff };
  }

  private async publish(setOff: SetOff, awaited: boolean): Promise<void> {
    const payloads: { [K in keyof KernelEventMap]: KernelEventMap[K] | undefined } = {
      'images.released': setOff.images.length ? { images: setOff.images } : undefined,
      'deliveries.queued': setOff.deliveries ? { count: setOff.deliveries } : undefined,
      'thumbnails.wanted': setOff.thumbnails.length ? { postIds: setOff.thumbnails } : undefined,
      'posts.changed': setOff.rows.length ? { rows: setOff.rows, awaited } : undefined,
      'descriptors.wanted': setOff.descriptors.length ? { postIds: setOff.descriptors } : undefined,
    };
    for (const event of EVENT_ORDER) {
      const payload = payloads[event];
      if (payload) await this.deps.events.publish(event, payload as never);
    }
  }
}

/**
 * A unit of work with table objects of its own on `db` and no reactions subscribed, for writers
 * outside the roles' wiring (the seeder, tools): their changes wait in the outbox for a relay, their
 * deliveries (none: they have no initiator) for the server's dispatcher.
 */
export const unitOfWorkOn = (db: Db, users: UserNames, events = new KernelEvents()): UnitOfWork =>
  new UnitOfWork({
    db,
    outbox: new Outbox(db),
    versions: new VersionRepository(db, users),
    webhooks: new WebhookRepository(db),
    thumbnails: new ThumbnailQueue(db),
    events,
  });
