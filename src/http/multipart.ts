import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type Koa from 'koa';
import { koaBody } from 'koa-body';
import { AppError } from '../errors.ts';
import { HARD_BODY_CAP } from './body.ts';
import type { AppState } from './context.ts';

export interface UploadedFile {
  path: string;
  size: number;
  /** the part's declared Content-Type */
  mimetype: string | null;
}

export interface MultipartParts {
  files: Record<string, UploadedFile>;
  /** text parts; small parts sent as files with a content type (e.g. metadata as application/json) are read in */
  fields: Record<string, string>;
}

const FIELD_PART_LIMIT = 256 * 1024;

const badPart = (path: (string | number)[], message: string) =>
  new AppError('validation', message, [{ code: 'invalid_request', expected: '', received: '', path, message }]);

/**
 * A parser abandoned by a client that left, or a worker task still finishing, can write into the
 * directory while it is being removed (ENOTEMPTY). Retry, try once more later if that fails too, and
 * never let the clean-up turn the request's own answer into a 500.
 */
async function removeUploadDir(dir: string): Promise<void> {
  const remove = () => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
  await remove().catch(() => setTimeout(() => void remove().catch(() => {}), 5_000).unref());
}

/**
 * Parses multipart/form-data with koa-body (formidable), writing file parts to `tmpDir`.
 * Temp files are removed after the request unless a handler moved them away.
 */
export function multipart(tmpDir: string, fileFields: string[], cap = HARD_BODY_CAP): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (!ctx.is('multipart/form-data')) throw badPart([], 'expected a body of type multipart/form-data');
    // A directory per request: whatever the parser wrote, even for a body it then refused, goes with it.
    const uploadDir = await fs.promises.mkdtemp(path.join(tmpDir, 'upload-'));
    try {
      await unlessClientLeaves(
        ctx.req,
        parserFor(uploadDir, cap)(ctx as never, async () => {}),
      );
      (ctx.state as AppState & { parts?: MultipartParts }).parts = collectParts(ctx, fileFields);
      await next();
    } finally {
      await removeUploadDir(uploadDir);
    }
  };
}

/**
 * The parser's promise, or a 400 as soon as the request stream is destroyed before its body was
 * read to the end. formidable never settles when that happened before it attached its listeners
 * (e.g. the client's next, malformed pipelined request made node destroy the socket): without this
 * the handler would hang forever, holding its context and its upload directory.
 */
function unlessClientLeaves(req: IncomingMessage, parsing: Promise<unknown>): Promise<unknown> {
  return new Promise((resolve, reject) => {
    // 'close' also follows a normal 'end'; only a close before the body was consumed is a hang-up.
    const gone = () => {
      if (!req.readableEnded) reject(badPart([], 'the connection closed before the request body was read'));
    };
    if (req.destroyed) gone();
    req.once('close', gone);
    parsing.then(resolve, reject).finally(() => req.off('close', gone));
  });
}

function parserFor(uploadDir: string, cap: number) {
  return koaBody({
    multipart: true,
    json: false,
    urlencoded: false,
    text: false,
    formidable: {
      uploadDir,
      maxFileSize: cap,
      maxTotalFileSize: cap,
      maxFields: 20,
      maxFieldsSize: FIELD_PART_LIMIT,
      maxFiles: 8,
      allowEmptyFiles: true,
      minFileSize: 0,
    },
    onError: (err) => {
      const status = (err as { httpCode?: number }).httpCode;
      if (status === 413) throw new AppError('too_large', 'request body too large');
      throw badPart([], `malformed multipart body: ${err.message}`);
    },
  });
}

function collectParts(ctx: Koa.Context, fileFields: string[]): MultipartParts {
  const raw = (ctx.request as unknown as { files?: Record<string, unknown> }).files ?? {};
  const fields: Record<string, string> = {};
  const files: Record<string, UploadedFile> = {};
  for (const [name, value] of Object.entries(raw)) {
    const list = (Array.isArray(value) ? value : [value]) as {
      filepath: string;
      size: number;
      mimetype: string | null;
    }[];
    if (list.length > 1) throw badPart([name], `part "${name}" was sent more than once`);
    const file = { path: list[0].filepath, size: list[0].size, mimetype: list[0].mimetype };
    if (fileFields.includes(name)) files[name] = file;
    else if (file.size <= FIELD_PART_LIMIT) fields[name] = fs.readFileSync(file.path, 'utf8');
    else throw badPart([name], `part "${name}" is too large`);
  }
  const body = ((ctx.request as { body?: unknown }).body ?? {}) as Record<string, string | string[]>;
  for (const [name, value] of Object.entries(body)) {
    if (Array.isArray(value) || name in fields) throw badPart([name], `part "${name}" was sent more than once`);
    if (fileFields.includes(name)) throw badPart([name], `part "${name}" must be a file`);
    fields[name] = value;
  }
  return { files, fields };
}

export const partsOf = (ctx: Koa.ParameterizedContext<AppState>): MultipartParts =>
  (ctx.state as AppState & { parts?: MultipartParts }).parts ?? { files: {}, fields: {} };
