/**
 * The one way the gallery talks to the service: openapi-fetch typed by ./api-schema.d.ts (generated
 * from the service's OpenAPI document). Every failure becomes an ApiError whose message is words a
 * person can act on; pages show it, never swallow it.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api-schema';
import { describeFailure } from './failure-words.ts';

export type Schemas = components['schemas'];
export type Post = Schemas['Post'];
export type Self = Schemas['Self'];
export type Rating = Schemas['Rating'];

export const api = createClient<paths>({ baseUrl: location.origin });

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

type Result<T> = { data?: T; error?: unknown; response: Response };

/** The data of a successful call, or an ApiError with the words for the failure. */
export async function ok<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await call;
  } catch {
    throw new ApiError(0, 'Could not reach the server. Check the connection and try again.');
  }
  const { response } = result;
  if (response.ok) return result.data as T;
  throw new ApiError(
    response.status,
    describeFailure(response.status, result.error, response.headers.get('retry-after')),
    result.error,
  );
}

/** The error's words for a message box (anything thrown, not only ApiError). */
export const errorText = (err: unknown) =>
  err instanceof ApiError ? err.message : `Something went wrong in the page: ${String(err)}`;

/** `<id>.320.webp` beside `<id>.<ext>`: the thumbnail naming of GET /media/{image}. */
export function thumbnailOf(imageURL: string, id: string): string {
  return imageURL.slice(0, imageURL.lastIndexOf('/') + 1) + `${id}.320.webp`;
}

/** The post UUID in an image URL (`<id>.<ext>`, docs/decisions.md §4), for links where only the URL is given. */
export function postIdOf(imageURL: string): string | undefined {
  const name = imageURL.slice(imageURL.lastIndexOf('/') + 1);
  const id = name.slice(0, name.indexOf('.'));
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id) ? id : undefined;
}

export const PERMISSION = {
  super: 0x1,
  create: 0x2,
  edit: 0x4,
  tags: 0x1000,
  delete: 0x2000,
  comment: 0x4000,
} as const;
export const can = (self: Pick<Self, 'permission'> | undefined, bit: number) =>
  !!self && ((self.permission & PERMISSION.super) !== 0 || (self.permission & bit) !== 0);
