import type Koa from 'koa';
import { isConnectionError } from '../elasticsearch/client.ts';
import { AppError, type ErrorCode, type ValidationIssue } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AppState } from './context.ts';

/** The one place where error codes become HTTP statuses. */
const STATUS: Record<ErrorCode, number> = {
  validation: 400,
  unauthenticated: 401,
  login_failed: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  duplicate_image: 409,
  too_large: 413,
  unsupported_media: 400,
  media_too_complex: 400,
  rate_limited: 429,
  unavailable: 503,
  store_unavailable: 503,
};

/** One line from a validation error's issues, for routes that answer `{ error: message }`. */
export function issueMessage(err: AppError): string {
  const issues = (err.details as ValidationIssue[] | undefined) ?? [];
  if (issues.length === 0) return err.message;
  return issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
}

/**
 * Marks a route whose errors are all `{ error: message }` with the usual status, its 400s included
 * (POST /image/search, docs/decisions.md §7), instead of the spec's issue arrays. Put it first on the route,
 * so that its body parser's errors are answered the same way.
 */
export function messageErrors(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.errorsAsMessage = true;
    await next();
  };
}

/**
 * Marks a route of the Danbooru read API (docs/decisions.md §20): every error, its 400s included, is
 * `{ success: false, message }` with the status the rest of the API would use.
 */
export function booruErrors(): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    ctx.state.errorsAsBooru = true;
    await next();
  };
}

function bodyFor(err: AppError, asMessage: boolean, asBooru = false): unknown {
  if (asBooru) return { success: false, message: err.code === 'validation' ? issueMessage(err) : err.message };
  if (asMessage && err.code === 'validation') return { error: issueMessage(err) };
  switch (err.code) {
    case 'validation':
    case 'duplicate_image':
      return err.details;
    case 'login_failed':
      return err.message;
    // docs/decisions.md §21: a refused file is an issue of the `image` part, its code naming why
    case 'unsupported_media':
    case 'media_too_complex':
      return [{ code: err.code, expected: '', received: '', path: ['image'], message: err.message }];
    default:
      return { error: err.message };
  }
}

/** Errors raised by koa and its body parsers carry an HTTP status of their own. */
function fromHttpError(err: unknown): AppError | undefined {
  // Anything can be thrown: `throw null` or `Promise.reject()` must become a 500 here, not a TypeError
  // that escapes to koa's default handler (text/plain, X-Request-Id dropped, nothing logged).
  if (typeof err !== 'object' || err === null) return undefined;
  const { status, message: rawMessage, expose } = err as { status?: unknown; message?: unknown; expose?: unknown };
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const message = expose && typeof rawMessage === 'string' && rawMessage ? rawMessage : 'bad request';
  if (status === 413) return new AppError('too_large', 'request body too large');
  if (status === 400 || status === 415 || status === 422)
    return new AppError('validation', message, [
      { code: 'invalid_request', expected: '', received: '', path: [], message },
    ]);
  const code = (Object.entries(STATUS).find(([, s]) => s === status)?.[0] ?? 'validation') as ErrorCode;
  return new AppError(code, message);
}

export function errorHandler(log: Logger): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw new AppError('not_found', 'not found');
    } catch (caught) {
      const err =
        caught instanceof AppError
          ? caught
          : isConnectionError(caught)
            ? new AppError('unavailable', 'the search index is unavailable; try again shortly')
            : fromHttpError(caught);
      if (!err) {
        log.error('unexpected error', {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: ctx.path,
          err: caught,
        });
        ctx.status = 500;
        ctx.body = { error: 'internal error' };
        return;
      }
      ctx.status = STATUS[err.code];
      // Only errors the route itself raised: the message form never reached koa's own HTTP errors.
      ctx.body = bodyFor(
        err,
        ctx.state.errorsAsMessage === true && caught instanceof AppError,
        ctx.state.errorsAsBooru === true,
      );
      // A bare string body (the login failure) must still go out as a JSON string.
      if (typeof ctx.body === 'string') {
        ctx.body = JSON.stringify(ctx.body);
        ctx.type = 'application/json';
      }
      if (err.retryAfter !== undefined) ctx.set('Retry-After', String(Math.ceil(err.retryAfter)));
    }
  };
}
