import { z } from 'zod';
import { parse, queryInt } from '../../http/validate.ts';
import { MEDIA_KINDS, RATINGS, type MediaKind, type Rating } from '../../kernel/post-record.ts';
import {
  parseQueryCondition,
  spellingOf,
  SPELLING_MESSAGE,
  type ParsedQueryCondition,
  type Spelling,
} from './query-condition.ts';
import type { GallerySort } from '../query/gallery.ts';
import { RATING_ALIASES, ratingNamed } from '../query/ratings.ts';
import { MAX_MATCH_LENGTH } from './text-match.ts';

/** `POST /image/search` request shapes (docs/decisions.md §7). */

// The request names the facets (docs/decisions.md §11); facets.ts turns them into aggregations.
export const FACETS = ['tags', 'rating', 'uploader'] as const;
export type Facet = (typeof FACETS)[number];

export const CONDITION_TYPES = [
  'tagInclude',
  'tagExclude',
  'tagAny',
  'ratingEq',
  'textContains',
  'uploadedBy',
  'textMatch',
  'favoritedBy',
  'query',
  'scoreGte',
  'scoreLte',
  'commentedBy',
  // docs/decisions.md §19
  'pool',
  'childOf',
  'sourceContains',
  // docs/decisions.md §22
  'originSite',
  // docs/decisions.md §21
  'mediaKind',
  'durationGte',
  'durationLte',
  'hasAudio',
  // docs/decisions.md §23
  'hasNotes',
] as const;
export type ConditionType = (typeof CONDITION_TYPES)[number];
export const MAX_CONDITIONS = 50;
export const MAX_IMAGE_LIMIT = 24;
export { MAX_MATCH_LENGTH };

export type Condition =
  | { type: 'tagInclude' | 'tagExclude' | 'tagAny' | 'textContains' | 'textMatch'; value: string }
  | { type: 'ratingEq'; value: Rating }
  | { type: 'uploadedBy'; value: string; userId: number | undefined }
  // docs/decisions.md §14: a username; the service finds its id (an unknown name matches nothing)
  | { type: 'favoritedBy'; value: string; userId?: number }
  // docs/decisions.md §18: a score bound (an integer), and a username as favoritedBy
  | { type: 'scoreGte' | 'scoreLte'; value: string; bound: number }
  | { type: 'commentedBy'; value: string; userId?: number }
  // docs/decisions.md §20: a search in the Danbooru or the gallery's spelling, parsed when the request is read
  | { type: 'query'; value: string; spelling: Spelling; parsed: ParsedQueryCondition }
  // docs/decisions.md §19: a pool id; a post (number or UUID; the service finds a UUID's number); a substring
  | { type: 'pool'; value: string; poolId: number }
  | { type: 'childOf'; value: string; parentSeq?: number }
  | { type: 'sourceContains'; value: string }
  // docs/decisions.md §22: the site an imported post came from
  | { type: 'originSite'; value: string }
  // docs/decisions.md §21: kinds as a comma list; a bound in seconds; true or false
  | { type: 'mediaKind'; value: string; kinds: MediaKind[] }
  | { type: 'durationGte' | 'durationLte'; value: string; bound: number }
  | { type: 'hasAudio'; value: string; audio: boolean }
  // docs/decisions.md §23: "true" (has notes) or "false" (has none)
  | { type: 'hasNotes'; value: string; has: boolean };

/** docs/decisions.md §21's condition values read, or the 400 message. */
export function mediaCondition(
  type: 'mediaKind' | 'durationGte' | 'durationLte' | 'hasAudio',
  value: string,
): Condition | string {
  if (type === 'mediaKind') {
    const kinds = value.toLowerCase().split(',');
    if (!kinds.every((k) => (MEDIA_KINDS as readonly string[]).includes(k)))
      return `mediaKind is a comma list of ${MEDIA_KINDS.join(', ')}`;
    return { type, value, kinds: kinds as MediaKind[] };
  }
  if (type === 'hasAudio') {
    const v = value.toLowerCase();
    if (v !== 'true' && v !== 'false') return 'hasAudio is true or false';
    return { type, value, audio: v === 'true' };
  }
  if (!SECONDS.test(value)) return `${type} values are seconds (digits, at most 6 decimals)`;
  return { type, value, bound: Number(value) };
}
const SECONDS = /^\d{1,9}(?:\.\d{1,6})?$/;

export type ImageOrderBy = 'id' | 'uploadDate' | 'relevance' | 'favorites' | 'pool' | 'score' | 'comments';
const ORDERS: ReadonlySet<unknown> = new Set(['id', 'relevance', 'favorites', 'pool', 'score', 'comments']);
/** A known orderBy, or uploadDate for anything else (docs/decisions.md §7). */
export const orderByOf = (v: unknown): ImageOrderBy => (ORDERS.has(v) ? (v as ImageOrderBy) : 'uploadDate');

/** `hasNotes`'s value: true or false, in any case; undefined for anything else. */
export const hasNotesCondition = (value: string): Condition | undefined => {
  const v = value.toLowerCase();
  return v === 'true' || v === 'false' ? { type: 'hasNotes', value: v, has: v === 'true' } : undefined;
};

/** A score bound's value: an integer as decimal digits with an optional sign, at most 9 digits (§18). */
export const SCORE_BOUND = /^[+-]?\d{1,9}$/;

const POSITIVE = /^[1-9]\d{0,15}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A positive safe integer written in digits, or undefined. */
export const positiveId = (v: string): number | undefined =>
  POSITIVE.test(v) && Number.isSafeInteger(Number(v)) ? Number(v) : undefined;
/** `childOf`'s value: a post number, or a UUID the service turns into one; undefined when neither. */
export const childOfCondition = (value: string): Condition | undefined => {
  const seq = positiveId(value);
  if (seq !== undefined) return { type: 'childOf', value, parentSeq: seq };
  return UUID.test(value) ? { type: 'childOf', value: value.toLowerCase() } : undefined;
};
const SORT_ORDERS: Record<GallerySort, { orderBy: ImageOrderBy; order: 'asc' | 'desc' }> = {
  new: { orderBy: 'uploadDate', order: 'desc' },
  old: { orderBy: 'uploadDate', order: 'asc' },
  relevance: { orderBy: 'relevance', order: 'desc' },
  score: { orderBy: 'score', order: 'desc' },
  comments: { orderBy: 'comments', order: 'desc' },
};

/**
 * The request's order. `orderBy` absent: the first gallery-spelled query's sort, else uploadDate.
 * `order` absent: that sort's direction, else descending, but a pool reads from its first post
 * (docs/decisions.md §19).
 */
export function settleOrder(
  orderBy: ImageOrderBy | undefined,
  order: 'asc' | 'desc' | undefined,
  conditions: readonly Condition[],
): { orderBy: ImageOrderBy; order: 'asc' | 'desc' } {
  let boxed: (typeof SORT_ORDERS)[GallerySort] | undefined;
  if (orderBy === undefined)
    for (const c of conditions)
      if (c.type === 'query' && c.parsed.sort) {
        boxed = SORT_ORDERS[c.parsed.sort];
        break;
      }
  const by = orderBy ?? boxed?.orderBy ?? 'uploadDate';
  return { orderBy: by, order: order ?? boxed?.order ?? (by === 'pool' ? 'asc' : 'desc') };
}

/** docs/decisions.md §19: orderBy pool needs exactly one pool condition. */
export const POOL_ORDER_MESSAGE = 'orderBy "pool" needs exactly one pool condition';
export const poolOrderIsValid = (orderBy: ImageOrderBy, conditions: readonly Condition[]): boolean =>
  orderBy !== 'pool' || conditions.filter((c) => c.type === 'pool').length === 1;

export interface ImageSearchRequest {
  conditions: Condition[];
  orderBy: ImageOrderBy;
  order: 'asc' | 'desc';
  /** absent: no `facets` in the response */
  facets?: Facet[];
}

export { RATING_ALIASES, ratingNamed };

const condition = z
  .object({
    type: z.enum(CONDITION_TYPES, {
      errorMap: () => ({ message: `unknown condition type; expected one of ${CONDITION_TYPES.join(', ')}` }),
    }),
    value: z.string().trim().min(1, 'condition value must not be empty'),
    // docs/decisions.md §20: read by the query condition only
    spelling: z.unknown().optional(),
  })
  .transform((c, ctx): Condition => {
    switch (c.type) {
      case 'ratingEq': {
        const rating = ratingNamed(c.value.toLowerCase());
        if (!rating) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: `rating must be one of ${RATINGS.join(', ')}` });
          return z.NEVER;
        }
        return { type: 'ratingEq', value: rating };
      }
      case 'uploadedBy': {
        // A positive integer also names a user id (docs/decisions.md §7).
        const id = /^[1-9]\d{0,15}$/.test(c.value) ? Number(c.value) : undefined;
        return {
          type: 'uploadedBy',
          value: c.value,
          userId: id !== undefined && Number.isSafeInteger(id) ? id : undefined,
        };
      }
      case 'textMatch':
        // Each analysed word becomes a clause; past Elasticsearch's clause limit the query would fail.
        if (c.value.length > MAX_MATCH_LENGTH) {
          ctx.addIssue({
            code: 'custom',
            path: ['value'],
            message: `textMatch values are at most ${MAX_MATCH_LENGTH} characters`,
          });
          return z.NEVER;
        }
        return { type: c.type, value: c.value };
      case 'query': {
        const spelling = spellingOf(c.spelling);
        if (!spelling) {
          ctx.addIssue({ code: 'custom', path: ['spelling'], message: SPELLING_MESSAGE });
          return z.NEVER;
        }
        const parsed = parseQueryCondition(c.value, spelling);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', path: ['value'], message: parsed });
          return z.NEVER;
        }
        return { type: 'query', value: c.value, spelling, parsed };
      }

      case 'scoreGte':
      case 'scoreLte':
        if (!SCORE_BOUND.test(c.value)) {
          ctx.addIssue({
            code: 'custom',
            path: ['value'],
            message: `${c.type} values are integers of at most 9 digits`,
          });
          return z.NEVER;
        }
        return { type: c.type, value: c.value, bound: Number(c.value) };
      case 'pool': {
        const poolId = positiveId(c.value);
        if (poolId === undefined) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'a pool condition names a pool id' });
          return z.NEVER;
        }
        return { type: 'pool', value: c.value, poolId };
      }
      case 'childOf': {
        const parsed = childOfCondition(c.value);
        if (!parsed) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'childOf names a post (its number or UUID)' });
          return z.NEVER;
        }
        return parsed;
      }
      case 'mediaKind':
      case 'durationGte':
      case 'durationLte':
      case 'hasAudio': {
        const parsed = mediaCondition(c.type, c.value);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', path: ['value'], message: parsed });
          return z.NEVER;
        }
        return parsed;
      }
      case 'hasNotes': {
        const parsed = hasNotesCondition(c.value);
        if (!parsed) {
          ctx.addIssue({ code: 'custom', path: ['value'], message: 'hasNotes is "true" or "false"' });
          return z.NEVER;
        }
        return parsed;
      }
      default:
        return { type: c.type, value: c.value };
    }
  });

// Exported (with `query`) for the OpenAPI document, which shows the fields; `body` adds the rules across them.
export const bodyFields = z.object({
  conditions: z.array(condition).max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions are accepted`).default([]),
  // Anything but the known values falls back rather than failing (docs/decisions.md §7), whatever its type;
  // absent, a gallery-spelled query may decide (settleOrder).
  orderBy: z.unknown().transform((v) => (v === undefined ? undefined : orderByOf(v))),
  // Absent: descending, but a pool reads from its first post (docs/decisions.md §19).
  order: z.unknown().transform((v): 'asc' | 'desc' | undefined => (v === 'asc' || v === 'desc' ? v : undefined)),
  // docs/decisions.md §11: counts over the whole result for any of these, each at most once.
  facets: z
    .array(z.enum(FACETS, { errorMap: () => ({ message: `unknown facet; expected some of ${FACETS.join(', ')}` }) }))
    .max(FACETS.length, `at most ${FACETS.length} facets`)
    .refine((list) => new Set(list).size === list.length, 'a facet may be named only once')
    .optional(),
});

export const body = bodyFields
  .refine((b) => b.orderBy === undefined || poolOrderIsValid(b.orderBy, b.conditions), {
    message: POOL_ORDER_MESSAGE,
    path: ['orderBy'],
  })
  .transform((b) => ({ ...b, ...settleOrder(b.orderBy, b.order, b.conditions) }) as ImageSearchRequest);

const INT32_MAX = 2 ** 31 - 1;
export const query = z.object({
  offset: queryInt({ min: 0, default: 0, max: INT32_MAX }),
  limit: queryInt({ min: 1, default: MAX_IMAGE_LIMIT, max: INT32_MAX }).transform((n) => Math.min(n, MAX_IMAGE_LIMIT)),
});

export function parseImageSearch(
  input: unknown,
  rawQuery: unknown,
): { request: ImageSearchRequest; offset: number; limit: number } {
  const paging = parse(query, rawQuery);
  const request = parse(body, input === undefined ? {} : input);
  return { request, ...paging };
}
