import { postsHealth } from '../elasticsearch/client.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Logger } from '../log.ts';

const INTERVAL_MS = 5000;

/**
 * Logs when the Elasticsearch cluster degrades and when it recovers, so an operator sees a lost node
 * in the service's own log (readiness alone only turns 503 when the posts index cannot serve). Polls
 * the cluster's health and logs each change of state, not each poll. Also creates the posts index
 * when the cluster answers without it: a server started before its cluster had formed could not at
 * start-up, and its outbox holds every change since. Runs in the server only: CLI jobs are short and
 * have no one to tell.
 */
export class ClusterWatcher {
  private timer: NodeJS.Timeout | undefined;
  private last: { cluster: string; postsIndex: string; serving: boolean; nodes: number } | undefined;
  private checking: Promise<void> | undefined;

  constructor(
    private readonly postsIndex: PostsIndex,
    private readonly log: Logger,
    private readonly intervalMs = INTERVAL_MS,
  ) {}

  /** The first check waits one interval: start-up has just opened (or created) the posts index itself. */
  start(): void {
    const loop = () => {
      this.checking = this.check().finally(() => {
        if (this.checking) this.timer = setTimeout(loop, this.intervalMs).unref();
      });
    };
    this.checking = Promise.resolve();
    this.timer = setTimeout(loop, this.intervalMs).unref();
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    const checking = this.checking;
    this.checking = undefined;
    await checking;
  }

  private async check(): Promise<void> {
    let h = await postsHealth(this.postsIndex.client, this.postsIndex.alias);
    if (h.cluster && !h.index) {
      const created = await this.postsIndex
        .ensure()
        .catch((err: Error) => void this.log.warn('could not create the posts index yet', { err: err.message }));
      if (created) {
        this.log.info('created the posts index, which did not exist at start-up', { alias: this.postsIndex.alias });
        h = await postsHealth(this.postsIndex.client, this.postsIndex.alias);
      }
    }
    const now = {
      cluster: h.cluster ?? 'unreachable',
      postsIndex: h.index ?? 'unavailable',
      serving: h.serving,
      nodes: h.nodes ?? 0,
    };
    const was = this.last;
    this.last = now;
    if (
      was &&
      was.cluster === now.cluster &&
      was.postsIndex === now.postsIndex &&
      was.serving === now.serving &&
      was.nodes === now.nodes
    )
      return;
    const fields = { ...now, ...(was ? { was: was.cluster, nodesBefore: was.nodes } : {}) };
    if (!now.serving) {
      this.log.error(
        'elasticsearch cluster degraded; the posts index cannot serve (searches and uploads answer 503)',
        fields,
      );
    } else if (now.cluster !== 'green') {
      this.log.warn('elasticsearch cluster degraded; the posts index still serves', fields);
    } else if (was && (was.cluster !== 'green' || !was.serving)) {
      // Green at start-up is the normal case; green after anything else is the recovery.
      this.log.info('elasticsearch cluster is green again', fields);
    } else if (was && now.nodes < was.nodes) {
      this.log.warn('an elasticsearch node left the cluster; it is still green', fields);
    } else if (was) {
      this.log.info('elasticsearch cluster changed', fields);
    }
  }
}
