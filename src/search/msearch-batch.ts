import { isConnectionError, type EsClient } from '../elasticsearch/client.ts';

/** One search's answer in an `_msearch` response, as far as `filter_path` leaves it. */
export type MsearchAnswer = Record<string, unknown> & { error?: unknown; status?: number };

interface Pending {
  searches: object[];
  resolve: (answers: MsearchAnswer[]) => void;
  reject: (err: unknown) => void;
}

/** Past this many callers a batch goes at once rather than waiting. */
const MAX_BATCH = 32;
/**
 * `_msearch` requests of one batcher at the engine at once. While they are out, new searches wait
 * and go together when one comes back (group commit): under load the batches grow by themselves, at
 * no cost to a lone search, which goes at the end of its turn as before. Two keep the engine's search
 * threads busy (each `_msearch` runs several of its searches at once) while one batch's answers
 * travel back. Not src/util/limit.ts: what waits here is folded into the next request, not run alone.
 */
const MAX_IN_FLIGHT = 2;

/**
 * The `_msearch` requests that start while the engine is busy, for the same index and `filter_path`,
 * go to Elasticsearch as one request, each caller getting its own answers back in order. Under load
 * many searches start close together; each request to the engine cost the server a system call and
 * the client's per-request work (transport, undici, parsing), together about a quarter of
 * `/image/search`'s CPU (issue 28), and the engine its own per-request work. The engine runs an
 * `_msearch`'s searches independently, so each caller's answers, errors included, are what its own
 * request would have got; an engine that cannot be reached fails every caller in it, each then
 * handling the error as before. A caller alone sends exactly the request it would have sent without
 * batching.
 */
export class MsearchBatcher {
  private readonly queues = new Map<string, Pending[]>();
  private scheduled = false;
  private inFlight = 0;

  constructor(private readonly es: EsClient) {}

  /** `searches`: header and body lines, two per search. */
  run(index: string, searches: object[], filterPath: string): Promise<MsearchAnswer[]> {
    return new Promise((resolve, reject) => {
      // The key keeps batches to requests that share the URL (index and filter_path).
      const key = `${index}\n${filterPath}`;
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = []));
      queue.push({ searches, resolve, reject });
      if (queue.length >= MAX_BATCH) {
        this.queues.delete(key);
        this.dispatch(key, queue);
      } else if (!this.scheduled && this.inFlight < MAX_IN_FLIGHT) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Sends what waits, as far as the in-flight limit allows; the rest goes when a request comes back. */
  private flush(): void {
    this.scheduled = false;
    for (const [key, queue] of this.queues) {
      if (this.inFlight >= MAX_IN_FLIGHT) return;
      this.queues.delete(key);
      this.dispatch(key, queue);
    }
  }

  private dispatch(key: string, queue: Pending[]): void {
    const cut = key.indexOf('\n');
    this.inFlight++;
    void this.send(key.slice(0, cut), key.slice(cut + 1), queue).finally(() => {
      this.inFlight--;
      if (this.queues.size > 0 && !this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private async send(index: string, filterPath: string, queue: Pending[]): Promise<void> {
    try {
      const res = await this.es.msearch({
        index,
        searches: queue.flatMap((p) => p.searches) as never,
        filter_path: filterPath,
      });
      const answers = res.responses as unknown as MsearchAnswer[];
      const expected = queue.reduce((n, p) => n + p.searches.length / 2, 0);
      // Every answer carries `status`, so filter_path never drops one; a mismatch would misalign callers.
      if (answers.length !== expected) throw new Error(`_msearch answered ${answers.length} searches of ${expected}`);
      let at = 0;
      for (const p of queue) {
        const n = p.searches.length / 2;
        p.resolve(answers.slice(at, at + n));
        at += n;
      }
    } catch (err) {
      // A request refused as a whole (one search's own error comes back in its answer instead) goes
      // again caller by caller, so no caller's search can fail another's; an unreachable engine fails all.
      // Awaited, so the retries hold this request's in-flight slot until they are answered.
      if (queue.length > 1 && !isConnectionError(err)) {
        await Promise.all(queue.map((p) => this.send(index, filterPath, [p])));
        return;
      }
      for (const p of queue) p.reject(err);
    }
  }
}

const batchers = new WeakMap<EsClient, MsearchBatcher>();

/** The batcher of a client (one per client, so per app and per test). */
export function msearchBatcher(es: EsClient): MsearchBatcher {
  let b = batchers.get(es);
  if (!b) batchers.set(es, (b = new MsearchBatcher(es)));
  return b;
}
