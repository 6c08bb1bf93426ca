/**
 * Test-only: records every response a test app sends, for the OpenAPI contract check.
 * Enabled by IMGPOST_RECORD_RESPONSES=<dir> (see test/helpers/app.ts); each process appends JSON
 * lines to <dir>/responses-<pid>.jsonl. Validate a whole run afterwards with
 *   IMGPOST_RECORD_RESPONSES=/tmp/rec npx ava && npx tsx test/ecosystem/validate-recorded.ts /tmp/rec
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
  if (typeof b === 'string') return ctx.response.is('json') ? { kind: 'json', body: JSON.parse(b) } : { kind: 'text', body: null };
  // What koa will serialise: a round trip gives exactly the wire form (dates as strings, no undefined).
  return { kind: 'json', body: JSON.parse(JSON.stringify(b)) };
}

/** Adds the recorder as the outermost middleware, so it sees the final status and body. */
export function recordResponses(app: Koa<any>, dir: string): void {
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

export function readRecordings(files: string[]): RecordedResponse[] {
  return files.flatMap((f) =>
    fs
      .readFileSync(f, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as RecordedResponse),
  );
}
