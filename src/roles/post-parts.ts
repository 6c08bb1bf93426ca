import type { Db } from '../db/sqlite.ts';
import { postPeopleOn, type PostPeopleTables } from '../posts/post-tables.ts';
import type { Logger } from '../log.ts';
import { KernelEvents } from '../kernel/events.ts';
import { UnitOfWork } from '../kernel/unit-of-work.ts';
import { Outbox } from '../kernel/outbox.ts';
import { OutboxRelay } from '../elasticsearch/outbox-relay.ts';
import { PostRepository } from '../kernel/post-repository.ts';
import { VersionRepository } from '../kernel/version-repository.ts';
import { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import { WebhookRepository } from '../webhook-store/webhook-repository.ts';
import { UserRepository } from '../accounts/user-repository.ts';
import type { SearchParts } from './search-parts.ts';

/**
 * The post tables and the unit of work every post write runs as (src/kernel/unit-of-work.ts), with
 * its event bus, nobody listening yet: each role subscribes the reactions it runs.
 */
export interface PostParts {
  db: Db;
  postRepository: PostRepository;
  /** the favorites', comments' and votes' tables */
  people: PostPeopleTables;
  outbox: Outbox;
  versions: VersionRepository;
  webhookRepository: WebhookRepository;
  thumbnailQueue: ThumbnailQueue;
  unitOfWork: UnitOfWork;
}

export function wirePosts(db: Db, log?: Logger): PostParts {
  // Posts and versions show users' names; the users table is the accounts' to read.
  const userNames = new UserRepository(db);
  // Favoriters, commenters and voters are read by the kernel but written by their features.
  const people = postPeopleOn(db);
  const postRepository = new PostRepository(db, userNames, people);
  const outbox = new Outbox(db);
  const versions = new VersionRepository(db, userNames);
  const webhookRepository = new WebhookRepository(db);
  const thumbnailQueue = new ThumbnailQueue(db);
  // A reaction that fails is logged: its write has committed, and a background loop retries.
  const events = new KernelEvents((event, err) =>
    log?.warn('a reaction to a committed write failed', { event, err: (err as Error).message }),
  );
  const unitOfWork = new UnitOfWork({
    db,
    outbox,
    versions,
    webhooks: webhookRepository,
    thumbnails: thumbnailQueue,
    events,
  });
  return { db, postRepository, people, outbox, versions, webhookRepository, thumbnailQueue, unitOfWork };
}

/** The post tables with the relay that applies their outbox to the search index. */
export interface IndexParts extends PostParts, SearchParts {
  relay: OutboxRelay;
}

/** The relay, listening: a job's writes (verify's repairs) reach the index through it. */
export function wireIndex(posts: PostParts, search: SearchParts, log: Logger): IndexParts {
  const relay = new OutboxRelay(posts.outbox, posts.postRepository, search.postsIndex, log);
  posts.unitOfWork.events.on('posts.changed', ({ rows, awaited }) => relay.changed(rows, awaited));
  return { ...posts, ...search, relay };
}
