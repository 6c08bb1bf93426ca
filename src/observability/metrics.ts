import client from 'prom-client';
import type { Config } from '../config.ts';
import type { EsClient } from '../elasticsearch/client.ts';
import type { HashPool } from '../hashing/pool.ts';
import type { Outbox } from '../kernel/outbox.ts';
import type { OutboxRelay } from '../elasticsearch/outbox-relay.ts';
import type { ThumbnailQueue } from '../kernel/thumbnail-jobs.ts';
import type { RobustDescriptors } from '../robust/descriptor-table.ts';
import type { Dispatcher } from '../webhooks/dispatcher.ts';
import type { RequestRecord } from './request-log.ts';

/** The services whose state the metrics read on scrape. */
export interface MetricsDeps {
  outbox: Outbox;
  relay: OutboxRelay;
  hashPool: HashPool;
  webhookDispatcher: Dispatcher;
  es: EsClient;
  config: Config;
  thumbnailQueue: ThumbnailQueue;
  /** posts.robust, through the post repository */
  postRepository: { robust: Pick<RobustDescriptors, 'pendingCount'> };
}

export interface AppMetrics {
  readonly registry: client.Registry;
  /** Feeds the latency histogram; the request-log middleware calls it once per request. */
  observeRequest(record: RequestRecord): void;
  /** The exposition a scrape gets (./metrics-routes.ts serves it). */
  scrape(): Promise<{ contentType: string; text: string }>;
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Prometheus metrics for one app instance. Each app has its own registry rather than prom-client's
 * global default, so several apps in one process (parallel tests) never share or clash on series.
 *
 * Most values already live in the services (`relay.stats`, `webhookDispatcher.stats`, the outbox
 * table, the hash pool); they are read on scrape by `collect` instead of being mirrored on every
 * change, so the services do not need to know metrics exist.
 */
export function createMetrics(deps: MetricsDeps): AppMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });

  const latency = new client.Histogram({
    name: 'imgpost_http_request_duration_seconds',
    help: 'Time to handle a request (until the handler is done; streamed bodies excluded), by route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  new client.Gauge({
    name: 'imgpost_outbox_backlog',
    help: 'Post changes not yet applied to the search index',
    registers: [registry],
    collect() {
      this.set(deps.outbox.backlog().count);
    },
  });
  new client.Gauge({
    name: 'imgpost_outbox_oldest_age_seconds',
    help: 'Age of the oldest change not yet applied to the search index (0 when none)',
    registers: [registry],
    collect() {
      this.set(deps.outbox.backlog().oldestAgeMs / 1000);
    },
  });

  // Counters whose running totals are kept by the services: reset and re-add on every scrape.
  const counterFrom = (name: string, help: string, read: () => number) =>
    new client.Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(read());
      },
    });
  counterFrom(
    'imgpost_index_relay_applied_total',
    'Outbox rows applied to the search index',
    () => deps.relay.stats.applied,
  );
  counterFrom(
    'imgpost_index_relay_failed_total',
    'Outbox rows whose index update failed (they are retried)',
    () => deps.relay.stats.failed,
  );

  new client.Counter({
    name: 'imgpost_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome (failures include time-outs, refusals and template errors)',
    labelNames: ['outcome'] as const,
    registers: [registry],
    collect() {
      const stats = deps.webhookDispatcher.stats;
      this.reset();
      this.inc({ outcome: 'success' }, stats.delivered);
      this.inc({ outcome: 'failure' }, stats.failed);
    },
  });

  // Every request the Elasticsearch client makes passes through its diagnostic events, whichever
  // service made it (search, relay, near-duplicate checks, readiness).
  const esErrors = new client.Counter({
    name: 'imgpost_elasticsearch_errors_total',
    help: 'Failed Elasticsearch requests, by error class (ConnectionError, TimeoutError, ResponseError, ...)',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  deps.es.diagnostic.on('response', (err) => {
    if (err) esErrors.inc({ kind: err.name || 'Error' });
  });

  new client.Gauge({
    name: 'imgpost_hash_pool_queue_size',
    help: 'Images waiting for a hashing worker',
    registers: [registry],
    collect() {
      this.set(deps.hashPool.queueSize);
    },
  });
  new client.Gauge({
    name: 'imgpost_hash_pool_utilization',
    help: 'Share of hashing worker capacity in use (0 to 1)',
    registers: [registry],
    collect() {
      this.set(deps.hashPool.utilization);
    },
  });

  new client.Gauge({
    name: 'imgpost_hash_pool_threads',
    help: 'Hashing workers running (the server keeps one and starts the others when images overlap)',
    registers: [registry],
    collect() {
      this.set(deps.hashPool.threads);
    },
  });

  new client.Gauge({
    name: 'imgpost_thumbnail_jobs',
    help: 'Posts whose thumbnails are still to be made (background work after the upload)',
    registers: [registry],
    collect() {
      this.set(deps.thumbnailQueue.size());
    },
  });

  new client.Gauge({
    name: 'imgpost_robust_descriptors_pending',
    help: 'Posts without a robust descriptor yet (docs/decisions.md §16: new uploads and the backfill of older posts)',
    registers: [registry],
    collect() {
      this.set(deps.postRepository.robust.pendingCount());
    },
  });

  return {
    registry,
    observeRequest(r) {
      latency.observe(
        {
          method: KNOWN_METHODS.has(r.method) ? r.method : 'OTHER',
          route: r.route ?? 'unmatched',
          status: String(r.status),
        },
        r.durationMs / 1000,
      );
    },
    async scrape() {
      return { contentType: registry.contentType, text: await registry.metrics() };
    },
  };
}
