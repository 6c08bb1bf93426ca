/**
 * Test-only: records every response a test app sends, for the OpenAPI contract check.
 * Enabled by IMGPOST_RECORD_RESPONSES=<dir>: `npm test` (test/run-suite.ts) sets it for the whole
 * ava run and validates the directory afterwards (validate-recorded.ts). Apps started by
 * startTestApp (test/helpers/app.ts) record in the ava worker; servers started as child processes
 * (test/reliability/child-server.ts) record through installChildRecorder. Each process appends
 * JSON lines to <dir>/responses-<pid>.jsonl.
 */
import fs from 'node:fs';
import path from 'node:path';
import type Koa from 'koa';

export interface RecordedResponse {
  method: string;
  /** the request path as sent, without the query */
  path: string;
  status: number;
  /** the media type without parameters, '' when there is no body */
  contentType: string;
  kind: 'json' | 'text' | 'binary' | 'none';
  /** the JSON body as it went on the wire; null for other kinds */
  body: unknown;
}

export const recordingFile = (dir: string, pid = process.pid) => path.join(dir, `responses-${pid}.jsonl`);

function describeBody(ctx: Koa.Context): Pick<RecordedResponse, 'kind' | 'body'> {
  const b: unknown = ctx.body;
  if (b === null || b === undefined || ctx.status === 204 || ctx.status === 304) return { kind: 'none', body: null };
  if (Buffer.isBuffer(b) || typeof (b as { pipe?: unknown }).pipe === 'function') return { kind: 'binary', body: null };
  if (typeof b === 'string') {
    if (!ctx.response.is('json')) return { kind: 'text', body: null };
    try {
      return { kind: 'json', body: JSON.parse(b) };
    } catch {
      // Not JSON although labelled so: kept as the raw string, which no documented schema accepts.
      return { kind: 'json', body: `invalid JSON: ${b.slice(0, 200)}` };
    }
  }
  // What koa will serialise: a round trip gives exactly the wire form (dates as strings, no undefined).
  return { kind: 'json', body: JSON.parse(JSON.stringify(b)) };
}

const recording = new WeakSet<object>();

/** Adds the recorder as the outermost middleware, so it sees the final status and body. Idempotent. */
export function recordResponses(app: Koa<any>, dir: string): void {
  if (recording.has(app)) return;
  recording.add(app);
  fs.mkdirSync(dir, { recursive: true });
  const file = recordingFile(dir);
  app.middleware.unshift(async (ctx, next) => {
    await next();
    const record: RecordedResponse = {
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      contentType: ctx.response.type,
      ...describeBody(ctx),
    };
    // One write per line with O_APPEND: concurrent apps in one process never interleave lines.
    fs.appendFileSync(file, `${JSON.stringify(record)}\n`);
  });
}

/**
 * For a server in a child process (`node dist/<build>/server.js`): every Koa app of the process
 * records, added when the app is first turned into a request handler (listen calls app.callback()).
 */
export async function installChildRecorder(dir: string): Promise<void> {
  const { default: KoaClass } = await import('koa');
  const proto = KoaClass.prototype as { callback(this: Koa<any>): unknown };
  const callback = proto.callback;
  proto.callback = function (this: Koa<any>) {
    recordResponses(this, dir);
    return callback.call(this);
  };
}

/**
 * The node arguments that make a child process record into `dir` (Node 24 strips this file's types itself):
 * an inline module that loads this file and installs the recorder before the entry point runs.
 * Worker threads (the hashing pool) inherit these arguments but serve nothing and may lack the
 * .ts loader: the module does nothing there.
 */
export function childRecorderArgs(dir: string | undefined): string[] {
  if (!dir) return [];
  const source = `import { isMainThread } from 'node:worker_threads';
if (isMainThread) await (await import(${JSON.stringify(import.meta.url)})).installChildRecorder(${JSON.stringify(dir)});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(source)}`];
}

/** Reads JSON-lines recordings; a torn last line (a process killed mid-write) is skipped. */
export function readRecordings(files: string[]): RecordedResponse[] {
  return files.flatMap((f) => {
    const lines = fs.readFileSync(f, 'utf8').split('\n');
    return lines.flatMap((line, i) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line) as RecordedResponse];
      } catch (err) {
        if (i === lines.length - 1) return [];
        throw new Error(`${f}:${i + 1}: ${(err as Error).message}`, { cause: err });
      }
    });
  });
}
