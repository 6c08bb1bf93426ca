/**
 * Webhook backlog drain (issue 16): how fast the dispatcher empties a queue of `deliveries`
 * pending deliveries spread evenly over `receivers` webhooks, each on its own loopback receiver,
 * against a plain signed-POST loop to the same receivers in the same run.
 *
 * - Ours: the backlog is queued the way the service queues it (outbox rows appended in
 *   transactions by the post kernel's commit step, which queues the deliveries), then a
 *   WebhookDispatcher is started on this thread (or, with `threads`, the server's DispatcherThread
 *   is kicked) and the clock runs until every delivery is recorded as delivered and every receiver
 *   has it.
 * - The anchor: the same bodies (rendered from the same events with the same templates before
 *   the clock starts), HMAC-SHA256 signed per request, POSTed with the same headers over a
 *   kept-alive connection, one request in flight per receiver: the concurrency the dispatcher allows
 *   (one webhook's events go out one at a time, in order). Two plain loops, one per HTTP client:
 *   node:http (`http.request` with a keep-alive Agent) and undici (a `Client` per receiver and
 *   `dispatch` with a handler object, the cheapest way undici sends), and **the ratio is against
 *   the faster of the two**. The rule: the plain loop always includes the client the product sends
 *   with (src/webhooks/send.ts, undici since issue 50) and the one it used before, so the figure
 *   can never improve only because the reference stayed on a slower client; a client the product
 *   moves to joins the anchors rather than replacing them.
 * - The receivers run in a child process (bench/lib/drain-receivers.ts) and check every
 *   signature and the order of events per receiver, for all of them.
 * After an uncounted warm-up of each, the order is both anchors, ours, both anchors, ours, ...,
 * both anchors (the two anchors in alternating order), so drift in the box's load hits all three.
 * Needs no Elasticsearch: the dispatcher reads only SQLite.
 */
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from 'undici';
import { UserRepository } from '../src/accounts/user-repository.ts';
import { openDatabase } from '../src/db/sqlite.ts';
import { createLogger } from '../src/log.ts';
import { unitOfWorkOn, type Initiator, type UnitOfWork } from '../src/kernel/unit-of-work.ts';
import { Outbox, type OutboxRow } from '../src/kernel/outbox.ts';
import type { PostRepository } from '../src/kernel/post-repository.ts';
import { postRepositoryOn } from '../src/posts/post-tables.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { signBody } from '../src/webhooks/attempt.ts';
import { WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { DispatcherThread } from '../src/webhooks/dispatcher-thread.ts';
import type { PostWebhook } from '../src/webhooks/send.ts';
import { eventDataFromOutbox } from '../src/webhooks/event-data.ts';
import { WebhookRepository, type WebhookRow } from '../src/webhook-store/webhook-repository.ts';
import { renderBody } from '../src/webhooks/service.ts';
import type { ReceiversReport } from './lib/drain-receivers.ts';
import { cpuSeconds, cpuWindow, runQueueWaitSeconds, threadCpuSeconds, threadCpuSpent } from './lib/cpu.ts';
import { StatusHandler } from './lib/undici-status.ts';
import { ROOT, tempDir } from './lib/env.ts';
import { repeated, type Repeated } from './lib/stats.ts';

export interface WebhookDrainOptions {
  deliveries: number;
  receivers: number;
  /** drains of ours; the anchor runs once more (before, between and after) */
  reps: number;
  /**
   * Another dispatcher, drained as often as ours, alternating with it (ours first in odd repetitions,
   * it first in even ones), between the same anchors: ours with another HTTP client (`send`: node-fetch's,
   * bench/lib/send-node-fetch.ts), or the dispatcher of another checkout of this repository (`root`: its
   * directory, with its own threads and client; bench/webhook-drain-ab.ts), to compare two versions in
   * one process, where the host's changes of speed hit both alike.
   */
  compare?: { label: string; send: PostWebhook } | { label: string; root: string };
  /**
   * Called as each counted drain of a dispatcher starts (label "ours" or the compared client's);
   * what it returns is awaited as that drain ends. bench/webhook-client-profile.ts profiles with it.
   */
  onDrain?: (label: string) => Promise<() => Promise<void>>;
  log?: (line: string) => void;
  /**
   * Drain with the server's DispatcherThread and this many threads (WEBHOOK_DISPATCHER_THREADS)
   * instead of a WebhookDispatcher on this thread (the default; always with `compare` or `onDrain`).
   */
  threads?: number;
}

export interface DrainRun {
  seconds: number;
  perSecond: number;
  /** CPU milliseconds of this (the sending) process per delivery */
  cpuMsPerDelivery: number;
  /**
   * CPU milliseconds of this process's main thread per delivery: the dispatcher's own thread when it
   * runs on it (the default), without the threads it hands work to
   */
  mainThreadCpuMsPerDelivery: number;
  /** the same for each of this process's threads (by name; worker threads busiest first, see threadCpuSpent) */
  threadCpuMsPerDelivery?: Record<string, number>;
  /** share of the wall time this process's main event loop was busy (the dispatcher's, when it runs on it) */
  eventLoopUtilization: number;
  /** CPU of the receivers' process per delivery (the same work for both: a floor shared by both) */
  receiverCpuMsPerDelivery: number;
  /**
   * Milliseconds per delivery that the sending process's main thread (the dispatcher's, or the plain
   * loop's) and the receivers' main thread spent runnable but waiting for a core (runQueueWaitSeconds).
   */
  runQueueWaitMsPerDelivery?: { sender: number; receivers: number };
  check: ReceiversReport;
}

/** The plain loop's HTTP clients (see the header: the ratio is against the faster). */
export type AnchorClient = 'node:http' | 'undici';
export const ANCHOR_CLIENTS: AnchorClient[] = ['node:http', 'undici'];

export interface WebhookDrainResult {
  deliveries: number;
  receivers: number;
  /** webhooks with a template of their own (the others use the default body) */
  customTemplates: number;
  /** threads the dispatcher ran on (1: in this process, on its main thread) */
  dispatcherThreads: number;
  meanBodyBytes: number;
  ours: Repeated;
  /** the faster plain loop's rate (anchorClient's) */
  anchor: Repeated;
  /** which plain loop was the faster (by median); absent in results from before issue 50's undici anchor */
  anchorClient?: AnchorClient;
  /** ours (median) ÷ anchor (median): against the faster plain loop */
  ratio: number;
  oursRuns: DrainRun[];
  /** the faster plain loop's runs */
  anchorRuns: DrainRun[];
  /** each plain loop, measured alternately in the same run */
  anchors?: Record<AnchorClient, { drains: Repeated; runs: DrainRun[] }>;
  /** the dispatcher with the `compare` client, when one was given; ratio: ours (median) ÷ its drains (median) */
  compared?: { label: string; drains: Repeated; runs: DrainRun[]; ratio: number };
  /** every run delivered every event once, in order, correctly signed */
  correct: boolean;
  /** when and how this figure was measured (it can be measured alone: `--only webhook-drain`) */
  measuredAt: string;
  command?: string;
  loadAverage?: number[];
}

/** A template of one's own for some webhooks, so rendering is not only the default's one `json` call per field. */
export const CUSTOM_TEMPLATE =
  '{"kind": {{json .Event}}, "id": {{.ImageID}}, "text": {{json .Text}}, "rating": {{json .Rating}}, ' +
  '"tags": [{{range $i, $t := .Tags}}{{if $i}}, {{end}}{{json $t}}{{end}}], "url": {{json .ImageURL}}' +
  '{{with .Initiator}}, "by": {{json .Username}}{{end}}{{if .Changes}}, "changes": {{json .Changes}}{{end}}}';
export const MEDIA_URL = 'http://127.0.0.1:9/media';

interface Receivers {
  ports: number[];
  expect(n: number): Promise<void>;
  done(): Promise<void>;
  report(): Promise<ReceiversReport>;
  pid: number;
  stop(): void;
}

async function startReceivers(secrets: string[]): Promise<Receivers> {
  const child: ChildProcess = fork(path.join(ROOT, 'bench/lib/drain-receivers.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = (key: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const onMsg = (m: Record<string, unknown>) => {
        if (!(key in m)) return;
        child.off('message', onMsg);
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) => reject(new Error(`drain receivers exited (${code})`));
      child.on('message', onMsg);
      child.once('exit', onExit);
    });
  const ready = next('ports');
  child.send({ secrets });
  const { ports } = (await ready) as { ports: number[] };
  let finished: Promise<unknown> = Promise.resolve();
  return {
    ports,
    async expect(n) {
      const ack = next('ready');
      finished = next('done');
      child.send({ expect: n });
      await ack;
    },
    done: async () => void (await finished),
    async report() {
      const r = next('report');
      child.send({ report: true });
      return (await r).report as ReceiversReport;
    },
    pid: child.pid!,
    stop: () => void child.kill(),
  };
}

/**
 * Appends `count` update events (texts "drain 0 …", "drain 1 …", …) in transactions of 1,000; the fan-out queues the
 * deliveries.
 */
function queueEvents(
  unitOfWork: UnitOfWork,
  posts: ReturnType<PostRepository['list']>,
  initiator: Initiator,
): OutboxRow[] {
  const rows: OutboxRow[] = [];
  const append = (from: number, to: number) =>
    unitOfWork.writeInBackground((tx) => {
      for (let i = from; i < to; i++) {
        const post = posts[i];
        rows.push(tx.updated(post, { ...post, text: `drain ${i} ${post.text}`, version: post.version + 1 }, initiator));
      }
    });
  for (let i = 0; i < posts.length; i += 1000) append(i, Math.min(posts.length, i + 1000));
  return rows;
}

async function measure(
  receivers: Receivers,
  n: number,
  send: () => Promise<void>,
  watch?: () => Promise<() => Promise<void>>,
): Promise<DrainRun> {
  await receivers.expect(n);
  const unwatch = await watch?.();
  const elu0 = performance.eventLoopUtilization();
  // `self` is this process: the dispatcher (or the plain loop) under test.
  const closeWindow = cpuWindow({ receivers: receivers.pid });
  const main0 = cpuSeconds(process.pid, process.pid);
  const threads0 = threadCpuSeconds(process.pid);
  const waits0 = [runQueueWaitSeconds(process.pid), runQueueWaitSeconds(receivers.pid)];
  await Promise.all([send(), receivers.done()]);
  const waits = [runQueueWaitSeconds(process.pid) - waits0[0], runQueueWaitSeconds(receivers.pid) - waits0[1]];
  const cpu = closeWindow();
  const main = cpuSeconds(process.pid, process.pid) - main0;
  const threads = threadCpuSpent(threads0, threadCpuSeconds(process.pid));
  const elu = performance.eventLoopUtilization(elu0);
  await unwatch?.();
  return {
    seconds: cpu.wallS,
    perSecond: n / cpu.wallS,
    cpuMsPerDelivery: (cpu.self * 1000) / n,
    mainThreadCpuMsPerDelivery: (main * 1000) / n,
    threadCpuMsPerDelivery: Object.fromEntries(threads.map(([name, s]) => [name, (s * 1000) / n])),
    eventLoopUtilization: elu.utilization,
    receiverCpuMsPerDelivery: (cpu.receivers * 1000) / n,
    runQueueWaitMsPerDelivery: { sender: (waits[0] * 1000) / n, receivers: (waits[1] * 1000) / n },
    check: await receivers.report(),
  };
}

export async function benchWebhookDrain(opts: WebhookDrainOptions): Promise<WebhookDrainResult> {
  const log = opts.log ?? (() => {});
  const perHook = Math.ceil(opts.deliveries / opts.receivers);
  const total = perHook * opts.receivers;
  const dataDir = tempDir('drain');
  const secrets = Array.from(
    { length: opts.receivers },
    (_, i) => `drain-secret-${i}-${crypto.randomBytes(8).toString('hex')}`,
  );
  const receivers = await startReceivers(secrets);
  const db = openDatabase(dataDir);
  const agent = new http.Agent({ keepAlive: true });
  // undici's plain loop: one kept-alive connection (a Client) per receiver.
  const undiciClients = receivers.ports.map(
    (port) => new Client(`http://127.0.0.1:${port}`, { keepAliveTimeout: 60_000 }),
  );
  const threads = opts.threads ?? 1;
  // A compared client or a profile needs the dispatcher in this process, on this thread.
  const threaded = opts.threads !== undefined && !opts.compare && !opts.onDrain;
  let stopThread = async () => {};
  const dispatchers = new Map<'ours' | 'compared', WebhookDispatcher>();
  try {
    const seed = seedPosts(db, { count: perHook, seed: 1, users: 5 });
    const posts = postRepositoryOn(db, new UserRepository(db)).list(0, perHook);
    const outbox = new Outbox(db);
    const repo = new WebhookRepository(db);
    // The unit of work with no reaction subscribed: the dispatcher is started once the whole
    // backlog is queued.
    const unitOfWork = unitOfWorkOn(db, new UserRepository(db));
    const customTemplates = Math.floor(opts.receivers / 2);
    const hooks: WebhookRow[] = receivers.ports.map(
      (port, i) =>
        repo.insertWithin(opts.receivers, {
          ownerId: seed.users[i % seed.users.length].id,
          label: `drain ${i}`,
          url: `http://127.0.0.1:${port}/hook/${i}`,
          secret: secrets[i],
          events: ['create', 'update', 'delete'],
          template: i < customTemplates ? CUSTOM_TEMPLATE : null,
        })!,
    );
    const initiator = seed.users[0];

    // The anchor's bodies: what the dispatcher will render for the same events, rendered up front.
    log(`webhook drain: rendering ${total} bodies for the anchor`);
    const sample = queueEvents(unitOfWork, posts, initiator);
    db.prepare("UPDATE webhook_deliveries SET status = 'dropped' WHERE status = 'pending'").run();
    // As UTF-8, as the dispatcher holds the bodies it makes ahead (src/webhooks/bodies-ahead.ts).
    const bodies = hooks.map((h) =>
      sample.map((row) => Buffer.from(renderBody(h.template, eventDataFromOutbox(row, initiator.name, MEDIA_URL)))),
    );
    const meanBodyBytes = bodies.flat().reduce((s, b) => s + b.length, 0) / total;

    const headersFor = (h: WebhookRow, body: Buffer) => ({
      'Content-Type': 'application/json',
      'User-Agent': 'imgpost-webhooks/1',
      'X-Signature': signBody(body, h.secret),
      'X-Webhook-Event': 'update',
      'X-Webhook-Delivery': crypto.randomUUID(),
    });
    const postHttp = (url: URL, h: WebhookRow, body: Buffer) =>
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            agent,
            headers: {
              'Content-Type': 'application/json',
              'Content-Length': body.length,
              'User-Agent': 'imgpost-webhooks/1',
              'X-Signature': signBody(body, h.secret),
              'X-Webhook-Event': 'update',
              'X-Webhook-Delivery': crypto.randomUUID(),
            },
          },
          (res) => {
            res.resume();
            res.on('end', () =>
              res.statusCode === 204 ? resolve() : reject(new Error(`anchor: HTTP ${res.statusCode}`)),
            );
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const postUndici = (client: Client, url: URL, h: WebhookRow, body: Buffer) =>
      new Promise<number>((resolve, reject) => {
        client.dispatch(
          { path: url.pathname, method: 'POST', headers: headersFor(h, body), body },
          new StatusHandler(resolve, reject, 204),
        );
      });
    const anchorOnce = (client: AnchorClient, count = perHook) =>
      measure(receivers, count * hooks.length, async () => {
        await Promise.all(
          hooks.map(async (h, i) => {
            const url = new URL(h.url);
            for (const body of bodies[i].slice(0, count)) {
              if (client === 'undici') await postUndici(undiciClients[i], url, h, body);
              else await postHttp(url, h, body);
            }
          }),
        );
      });

    /**
     * Ours and the compared one (another client, or another checkout's), on this thread, each started
     * by the warm-up's drain and kept across the drains as the server keeps its own (its start-up is
     * not a drain's cost); kicked, not polled, so none of a backlog is sent while it is being
     * queued.
     */
    const deps = { log: createLogger('warn'), config: { webhookAllowPrivate: true, mediaUrl: MEDIA_URL } };
    const dispatcherFor = async (which: 'ours' | 'compared') => {
      let dispatcher = dispatchers.get(which);
      if (dispatcher) return dispatcher;
      const c = opts.compare;
      if (which === 'compared' && c && 'root' in c) {
        // The other checkout's own modules, on the same database (its schema is assumed the same).
        const from = (file: string) => import(path.join(path.resolve(c.root), file));
        const [{ WebhookDispatcher: Theirs }, { WebhookRepository: TheirRepo }, { Outbox: TheirOutbox }] =
          await Promise.all([
            from('src/webhooks/dispatcher.ts'),
            from('src/webhook-store/webhook-repository.ts'),
            from('src/kernel/outbox.ts'),
          ]);
        dispatcher = new Theirs(
          // dataDir: a checkout from before session 36 opens its helper threads' connections with it.
          { ...deps, dataDir, repo: new TheirRepo(db), outbox: new TheirOutbox(db) },
          { pollMs: 3_600_000 },
        ) as WebhookDispatcher;
      } else {
        const send = which === 'compared' && c && 'send' in c ? c.send : undefined;
        dispatcher = new WebhookDispatcher({ ...deps, repo, outbox }, { send, pollMs: 3_600_000 });
      }
      dispatchers.set(which, dispatcher);
      return dispatcher;
    };
    const oursOnce = async (count = perHook, which: 'ours' | 'compared' = 'ours', label?: string) => {
      if (threaded && which === 'ours') return threadOnce(count);
      queueEvents(unitOfWork, posts.slice(0, count), initiator);
      const dispatcher = await dispatcherFor(which);
      const { delivered, failed } = dispatcher.stats;
      const result = await measure(
        receivers,
        count * hooks.length,
        async () => {
          dispatcher.start();
          dispatcher.kick();
          // Drained when nothing is pending any more; the dispatcher's own counter is read without a query.
          while (dispatcher.stats.delivered - delivered < count * hooks.length) {
            if (dispatcher.stats.failed > failed)
              throw new Error(`the dispatcher recorded ${dispatcher.stats.failed - failed} failed attempts`);
            await new Promise((r) => setTimeout(r, 5));
          }
          await dispatcher.whenIdle(); // every result written
        },
        label && opts.onDrain ? () => opts.onDrain!(label) : undefined,
      );
      const left = db
        .prepare("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
        .pluck()
        .get() as number;
      if (left !== 0) throw new Error(`${left} deliveries still pending after the drain`);
      return result;
    };

    /**
     * Ours as the server runs it: DispatcherThread's threads, each with its own connection to the
     * database, sharing the webhooks. Started by the warm-up's drain and kept across the drains (a
     * thread's start-up is not a drain's cost); kicked as the server kicks it, not polled, so none of
     * a backlog is sent while it is being queued.
     */
    const thread = new DispatcherThread({
      dataDir,
      config: { webhookAllowPrivate: true, mediaUrl: MEDIA_URL },
      log: createLogger('warn'),
      hasPending: () => repo.hasPending(),
      threads,
      logLevel: 'warn',
    });
    thread.configure({ pollMs: 3_600_000 });
    const threadOnce = async (count: number) => {
      queueEvents(unitOfWork, posts.slice(0, count), initiator);
      const failedBefore = thread.stats.failed;
      const result = await measure(receivers, count * hooks.length, async () => {
        if (thread.threadRunning) thread.kick();
        else thread.start();
        await receivers.done();
        await thread.whenIdle(); // every result written
      });
      const left = db
        .prepare("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'")
        .pluck()
        .get() as number;
      if (left !== 0) throw new Error(`${left} deliveries still pending after the drain`);
      if (thread.stats.failed > failedBefore)
        throw new Error(`the dispatcher recorded ${thread.stats.failed - failedBefore} failed attempts`);
      return result;
    };
    stopThread = () => thread.stop();

    // Warm-up, not counted: JIT compilation, first connections, SQLite's page cache.
    const warm = Math.min(perHook, 1000);
    for (const c of ANCHOR_CLIENTS) await anchorOnce(c, warm);
    await oursOnce(warm);
    if (opts.compare) await oursOnce(warm, 'compared');

    const anchorRunsBy: Record<AnchorClient, DrainRun[]> = { 'node:http': [], undici: [] };
    /** Both plain loops, in alternating order (r: the round). */
    const anchorsOnce = async (r: number) => {
      for (const c of r % 2 === 0 ? ANCHOR_CLIENTS : [...ANCHOR_CLIENTS].reverse()) {
        anchorRunsBy[c].push(await anchorOnce(c));
        log(`webhook drain: anchor (${c}) ${Math.round(anchorRunsBy[c].at(-1)!.perSecond)} deliveries/s`);
      }
    };
    const oursRuns: DrainRun[] = [];
    const comparedRuns: DrainRun[] = [];
    const drainOurs = async () => {
      oursRuns.push(await oursOnce(perHook, 'ours', 'ours'));
      log(
        `webhook drain: ours ${Math.round(oursRuns.at(-1)!.perSecond)} deliveries/s, ${oursRuns.at(-1)!.cpuMsPerDelivery.toFixed(3)} ms CPU per delivery`,
      );
    };
    const drainCompared = async (b: NonNullable<WebhookDrainOptions['compare']>) => {
      comparedRuns.push(await oursOnce(perHook, 'compared', b.label));
      log(
        `webhook drain: ${b.label} ${Math.round(comparedRuns.at(-1)!.perSecond)} deliveries/s, ${comparedRuns.at(-1)!.cpuMsPerDelivery.toFixed(3)} ms CPU per delivery`,
      );
    };
    for (let r = 0; r < opts.reps; r++) {
      await anchorsOnce(r);
      log(`webhook drain: ours, ${total} deliveries`);
      if (opts.compare && r % 2 === 1) await drainCompared(opts.compare);
      await drainOurs();
      if (opts.compare && r % 2 === 0) await drainCompared(opts.compare);
    }
    await anchorsOnce(opts.reps);

    const ours = repeated(oursRuns.map((r) => r.perSecond));
    const anchors = Object.fromEntries(
      ANCHOR_CLIENTS.map((c) => [
        c,
        { drains: repeated(anchorRunsBy[c].map((r) => r.perSecond)), runs: anchorRunsBy[c] },
      ]),
    ) as NonNullable<WebhookDrainResult['anchors']>;
    const anchorClient = ANCHOR_CLIENTS.reduce((a, b) => (anchors[b].drains.median > anchors[a].drains.median ? b : a));
    const anchor = anchors[anchorClient].drains;
    const anchorRuns = anchors[anchorClient].runs;
    const compared = opts.compare && comparedRuns.length ? repeated(comparedRuns.map((r) => r.perSecond)) : undefined;
    const correct = [...oursRuns, ...comparedRuns, ...anchorRunsBy['node:http'], ...anchorRunsBy.undici].every(
      (r) =>
        r.check.received === total &&
        r.check.badSignatures === 0 &&
        r.check.outOfOrder === 0 &&
        r.check.perReceiver.every((n) => n === perHook),
    );
    return {
      deliveries: total,
      receivers: opts.receivers,
      customTemplates,
      dispatcherThreads: threaded ? threads : 1,
      meanBodyBytes,
      ours,
      anchor,
      anchorClient,
      ratio: ours.median / anchor.median,
      oursRuns,
      anchorRuns,
      anchors,
      compared: compared && {
        label: opts.compare!.label,
        drains: compared,
        runs: comparedRuns,
        ratio: ours.median / compared.median,
      },
      correct,
      measuredAt: new Date().toISOString(),
    };
  } finally {
    for (const dispatcher of dispatchers.values()) await dispatcher.stop();
    await stopThread();
    agent.destroy();
    await Promise.all(undiciClients.map((c) => c.destroy()));
    receivers.stop();
    db.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
