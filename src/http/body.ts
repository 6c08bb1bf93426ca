import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState } from './context.ts';

/** Any request body past this is refused with 413 before it is buffered (docs/decisions.md §3). */
export const HARD_BODY_CAP = 5 * 1024 * 1024;
export const JSON_BODY_LIMIT = 1024 * 1024;

/**
 * The cap for a server whose images may be larger than the spec's (UPLOAD_MAX_BYTES): room for the multipart framing
 * and metadata.
 */
export const bodyCapFor = (maxImageBytes: number): number => Math.max(HARD_BODY_CAP, maxImageBytes + 1024 * 1024);

const badRequest = (message: string, code = 'invalid_request') =>
  new AppError('validation', message, [{ code, expected: '', received: '', path: [], message }]);

/** Refuses a declared Content-Length past the cap before reading a byte of the body. */
export function bodyCap(cap = HARD_BODY_CAP): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    const declared = Number(ctx.get('content-length') || 0);
    if (declared > cap) {
      ctx.set('Connection', 'close');
      throw new AppError('too_large', `request body larger than ${cap} bytes`);
    }
    await next();
  };
}

async function readLimited(req: NodeJS.ReadableStream, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new AppError('too_large', `request body larger than ${limit} bytes`);
      chunks.push(chunk);
    }
  } catch (err) {
    // A client that hangs up mid-body ("aborted"): its mistake, not a server fault, and no one hears the answer.
    if (err instanceof AppError) throw err;
    throw badRequest('request body ended before its declared length', 'incomplete_body');
  }
  return Buffer.concat(chunks);
}

function hasBody(ctx: Koa.Context): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

/**
 * Parses an `application/json` body into ctx.request.body. A missing body leaves it undefined
 * (the route's schema decides whether that is allowed); another content type or broken JSON is 400.
 */
export function jsonBody(limit = JSON_BODY_LIMIT): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (hasBody(ctx)) {
      if (!ctx.is('application/json'))
        throw badRequest('expected a body of type application/json', 'invalid_content_type');
      const raw = await readLimited(ctx.req, limit);
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
      } catch {
        throw badRequest('request body is not valid UTF-8', 'invalid_json');
      }
      try {
        (ctx.request as { body?: unknown }).body = text.trim() === '' ? undefined : JSON.parse(text);
      } catch {
        throw badRequest('request body is not valid JSON', 'invalid_json');
      }
    }
    await next();
  };
}

export const requestBody = (ctx: Koa.Context): unknown => (ctx.request as { body?: unknown }).body;

/**
 * The body of an endpoint whose fields are all optional: no body at all means `{}` (no change),
 * but a JSON `null` is a body like any other non-object and must fail the schema (400).
 */
export const optionalBody = (ctx: Koa.Context): unknown => {
  const body = requestBody(ctx);
  return body === undefined ? {} : body;
};
