import { loadConfig, type Config } from './config.ts';
import { openDatabase, type Db } from './db/sqlite.ts';
import { createEsClient, type EsClient } from './elasticsearch/client.ts';
import { startManagedNode } from './elasticsearch/managed-node.ts';
import { PostsIndex } from './elasticsearch/posts-index.ts';
import { createLogger, type Logger } from './log.ts';
import { Outbox } from './outbox/outbox.ts';
import { OutboxRelay } from './outbox/relay.ts';
import { PostRepository } from './posts/repository.ts';
import { AccountService } from './accounts/service.ts';
import { loadSessionSecret, SessionSealer } from './accounts/session-cookie.ts';
import { PostService } from './posts/service.ts';
import { PostHistory } from './posts/versions/history.ts';
import { VersionRepository } from './posts/versions/repository.ts';
import { TagRepository } from './tags/repository.ts';
import { TagService } from './tags/service.ts';
import { createHashPool, type HashPool } from './hashing/pool.ts';
import { ImageStore } from './media/image-store.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';
import { WebhookRepository } from './webhooks/repository.ts';
import { WebhookService } from './webhooks/service.ts';

/**
 * The composition root: every outside system and service, wired by hand.
 * Used by the server (src/main.ts), the CLI and the tests alike.
 */
export interface Services {
  config: Config;
  log: Logger;
  db: Db;
  es: EsClient;
  postsIndex: PostsIndex;
  postRepository: PostRepository;
  outbox: Outbox;
  relay: OutboxRelay;
  accounts: AccountService;
  hashPool: HashPool;
  images: ImageStore;
  postService: PostService;
  history: PostHistory;
  tags: TagService;
  webhooks: WebhookService;
  webhookDispatcher: WebhookDispatcher;
  /** Stops background work and closes every resource, in reverse order of opening. */
  close(): Promise<void>;
}

export async function resolveElasticsearchUrl(config: Config, log: Logger): Promise<string> {
  if (config.elasticsearch.url) return config.elasticsearch.url;
  const node = await startManagedNode({ log: (line) => log.info(line) });
  return node.url;
}

export async function compose(config: Config = loadConfig(), log: Logger = createLogger(config.logLevel)): Promise<Services> {
  const esUrl = await resolveElasticsearchUrl(config, log);
  const db = openDatabase(config.dataDir);
  const es = createEsClient({ ...config.elasticsearch, url: esUrl });
  const postsIndex = new PostsIndex(es, config.elasticsearch.indexPrefix, config.elasticsearch.replicas);
  try {
    await postsIndex.ensure();
  } catch (err) {
    // The service still starts (writes queue in the outbox); readiness reports Elasticsearch down.
    log.warn('could not prepare the posts index yet', { err: (err as Error).message });
  }

  const postRepository = new PostRepository(db);
  const outbox = new Outbox(db);
  const relay = new OutboxRelay(outbox, postRepository, postsIndex, log);
  const accounts = new AccountService({ db, posts: postRepository, outbox, sessions: new SessionSealer(loadSessionSecret(config)), log });

  const closers: (() => Promise<void> | void)[] = [];
  closers.push(() => void db.close(), () => es.close());
  const images = new ImageStore(config.dataDir, db);
  const recovered = images.recover();
  if (recovered.removed > 0) log.warn('removed image files left by an interrupted write', recovered);
  const hashPool = createHashPool({ workers: config.hashWorkers, maxQueue: config.hashQueueLimit });
  closers.push(() => hashPool.destroy());
  const postService = new PostService({ db, posts: postRepository, outbox, relay, postsIndex, hashPool, images, log, config });
  // Before anything writes: every post change from here on records its version.
  const history = new PostHistory({ db, versions: new VersionRepository(db), postService });
  history.attachTo(outbox);
  const tagRepository = new TagRepository(db);
  // Tags from before migration 008 get their case-folded key (JavaScript's folding, not SQLite's).
  const folded = tagRepository.foldMissing();
  if (folded > 0) log.info('case-folded tag names for the tag search', { tags: folded });
  const tags = new TagService({ db, tags: tagRepository });

  relay.start();
  closers.push(() => relay.stop());

  // Deliveries are queued inside each post change's transaction; the dispatcher sends them.
  const webhookRepository = new WebhookRepository(db);
  const webhookDispatcher = new WebhookDispatcher({ repo: webhookRepository, outbox, log, config });
  webhookDispatcher.attachFanOut(outbox);
  const webhooks = new WebhookService({ repo: webhookRepository, config, onReactivated: () => webhookDispatcher.kick() });
  webhookDispatcher.start();
  closers.push(() => webhookDispatcher.stop());

  return {
    config,
    log,
    db,
    es,
    postsIndex,
    postRepository,
    outbox,
    relay,
    accounts,
    hashPool,
    images,
    postService,
    history,
    tags,
    webhooks,
    webhookDispatcher,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
