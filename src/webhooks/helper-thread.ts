/**
 * A helper thread of the webhook dispatcher (result-thread.ts, body-thread.ts): requests go over
 * as messages and each answer comes back to the promise that asked. The thread starts with the
 * dispatcher (or the first request) and ends with it; one that dies fails the requests it had, and
 * the next request starts it again.
 *
 * Its worker file: from the TypeScript sources, workers/<name>.ts (through the entry beside it,
 * workers/ts-entry.cjs says why). A compiled dispatcher thread passes the compiled files beside its
 * own (workers/webhook-dispatcher.ts): in its bundle, `import.meta.url` is not where the workers are.
 */
import path from 'node:path';
import { type MessagePort, Worker } from 'node:worker_threads';
import { workerExecArgv } from '../util/worker-exec-argv.ts';

export type WorkerFiles = (name: 'webhook-results' | 'webhook-bodies') => string;

export const sourceWorkerFiles: WorkerFiles = (name) => new URL(`../../workers/${name}.ts`, import.meta.url).pathname;

type ToHelper<Req> = { type: 'call'; id: number; request: Req } | { type: 'close' };
type FromHelper<Res> = { id: number; answer: Res } | { id: number; error: string };

export class HelperThread<Req, Res> {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (answer: Res) => void; reject: (e: Error) => void }>();

  constructor(
    private readonly file: string,
    private readonly data: Record<string, unknown>,
  ) {}

  /** Starts the thread now rather than with the first request (its start-up is not a request's cost). */
  start(): void {
    this.worker ??= this.spawn();
  }

  call(request: Req): Promise<Res> {
    const worker = (this.worker ??= this.spawn());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ type: 'call', id, request } satisfies ToHelper<Req>);
    });
  }

  /** Ends the thread once it has answered what it was asked. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    this.worker = undefined;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage({ type: 'close' } satisfies ToHelper<Req>);
    await exited;
  }

  private spawn(): Worker {
    const worker = this.file.endsWith('.ts')
      ? new Worker(path.join(path.dirname(this.file), 'ts-entry.cjs'), {
          execArgv: workerExecArgv(this.file),
          workerData: { ...this.data, entry: this.file },
        })
      : new Worker(this.file, { workerData: this.data });
    worker.on('message', (m: FromHelper<Res>) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if ('error' in m) w?.reject(new Error(m.error));
      else w?.resolve(m.answer);
    });
    // Reported through the requests it fails (their callers log and retry or fall back).
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      for (const [id, w] of this.waiting) {
        this.waiting.delete(id);
        w.reject(new Error(`the webhook dispatcher's ${path.basename(this.file)} thread exited`));
      }
    });
    return worker;
  }
}

/** The worker's side: answers each request with `handle`'s result (or its error's message); `close` ends it. */
export function serveHelper<Req, Res>(port: MessagePort, handle: (request: Req) => Res, close: () => void): void {
  port.on('message', (m: ToHelper<Req>) => {
    if (m.type === 'close') {
      close();
      port.close();
      return;
    }
    let reply: FromHelper<Res>;
    try {
      reply = { id: m.id, answer: handle(m.request) };
    } catch (err) {
      reply = { id: m.id, error: (err as Error).message };
    }
    port.postMessage(reply);
  });
}
