/**
 * Errors that services throw. They carry a stable code and know nothing about HTTP;
 * `src/http/errors.ts` maps each code to a status in one place.
 */
export type ErrorCode =
  | 'validation' // issues: ValidationIssue[]
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed' // the route handler sets Allow
  | 'conflict' // generic 409 with a message
  | 'duplicate_image' // 409 whose body is `details` (the spec's array of matches)
  | 'too_large'
  | 'unsupported_media' // 400: not a picture or moving picture imgpost takes (docs/decisions.md §21)
  | 'media_too_complex' // 400: ffprobe or ffmpeg ran over its time or memory (docs/decisions.md §21)
  | 'rate_limited'
  | 'unavailable' // a dependency (Elasticsearch) is down
  | 'store_unavailable' // the media store (local disk or S3) failed or timed out: nothing was stored
  | 'login_failed';

export interface ValidationIssue {
  code: string;
  expected: string;
  received: string;
  path: (string | number)[];
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** seconds, for rate limits */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const notFound = (what = 'not found') => new AppError('not_found', what);
export const unavailable = (what: string) => new AppError('unavailable', what);

/** A single validation issue in the spec's shape, for checks zod does not make. */
export function invalid(
  path: (string | number)[],
  message: string,
  code = 'custom',
  expected = '',
  received = '',
): AppError {
  return new AppError('validation', message, [{ code, expected, received, path, message }] satisfies ValidationIssue[]);
}
