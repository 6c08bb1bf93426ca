import {
  CONDITION_TYPES,
  FACETS,
  MAX_CONDITIONS,
  MAX_IMAGE_LIMIT,
  MAX_MATCH_LENGTH,
  orderByOf,
  childOfCondition,
  mediaCondition,
  hasNotesCondition,
  poolOrderIsValid,
  positiveId,
  ratingNamed,
  SCORE_BOUND,
  settleOrder,
  type Condition,
  type Facet,
  type ImageOrderBy,
  type ImageSearchRequest,
} from './schemas.ts';
import { parseQueryCondition, spellingOf } from './query-condition.ts';

/**
 * The common `/image/search` request read without zod: a well-formed body and query give exactly
 * what the schema gives (test/search/image-search-parse.test.ts compares the two on generated
 * inputs); anything else, every invalid request included, answers undefined and goes through the
 * schema, which keeps every error message. zod was a visible share of the endpoint's CPU (issue 28;
 * bench/notes/image-search.md, "No zod for a well-formed request").
 */

const INT32_MAX = 2 ** 31 - 1;
const TYPES: ReadonlySet<string> = new Set(CONDITION_TYPES);
const FACET_NAMES: ReadonlySet<string> = new Set(FACETS);
const USER_ID = /^[1-9]\d{0,15}$/;
const DIGITS = /^\d{1,10}$/;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A query integer: absent → the default; digits within range → the number; else undefined (the schema decides). */
function queryInt(v: unknown, min: number, dflt: number): number | undefined {
  if (v === undefined) return dflt;
  if (typeof v !== 'string' || !DIGITS.test(v)) return undefined;
  const n = Number(v);
  return n >= min && n <= INT32_MAX ? n : undefined;
}

function condition(raw: unknown): Condition | undefined {
  if (!isPlainObject(raw)) return undefined;
  const { type, value: untrimmed } = raw;
  if (typeof type !== 'string' || !TYPES.has(type) || typeof untrimmed !== 'string') return undefined;
  const value = untrimmed.trim();
  if (value.length === 0) return undefined;
  switch (type) {
    case 'ratingEq': {
      const rating = ratingNamed(value.toLowerCase());
      return rating ? { type: 'ratingEq', value: rating } : undefined;
    }
    case 'uploadedBy': {
      const id = USER_ID.test(value) ? Number(value) : undefined;
      return { type: 'uploadedBy', value, userId: id !== undefined && Number.isSafeInteger(id) ? id : undefined };
    }
    case 'textMatch':
      return value.length > MAX_MATCH_LENGTH ? undefined : { type: 'textMatch', value };
    case 'query': {
      const spelling = spellingOf(raw.spelling);
      const parsed = spelling && parseQueryCondition(value, spelling);
      return !parsed || typeof parsed === 'string' ? undefined : { type: 'query', value, spelling, parsed };
    }
    case 'scoreGte':
    case 'scoreLte':
      return SCORE_BOUND.test(value) ? { type, value, bound: Number(value) } : undefined;
    case 'pool': {
      const poolId = positiveId(value);
      return poolId === undefined ? undefined : { type: 'pool', value, poolId };
    }
    case 'childOf':
      return childOfCondition(value);
    case 'mediaKind':
    case 'durationGte':
    case 'durationLte':
    case 'hasAudio': {
      const parsed = mediaCondition(type, value);
      return typeof parsed === 'string' ? undefined : parsed;
    }
    case 'hasNotes':
      return hasNotesCondition(value);
    default:
      return { type, value } as Condition;
  }
}

export function fastParseImageSearch(
  input: unknown,
  rawQuery: unknown,
): { request: ImageSearchRequest; offset: number; limit: number } | undefined {
  if (!isPlainObject(rawQuery)) return undefined;
  const offset = queryInt(rawQuery.offset, 0, 0);
  const limit = queryInt(rawQuery.limit, 1, MAX_IMAGE_LIMIT);
  if (offset === undefined || limit === undefined) return undefined;
  const body = input === undefined ? {} : input;
  if (!isPlainObject(body)) return undefined;
  const conditions: Condition[] = [];
  if (body.conditions !== undefined) {
    if (!Array.isArray(body.conditions) || body.conditions.length > MAX_CONDITIONS) return undefined;
    for (const raw of body.conditions) {
      const c = condition(raw);
      if (!c) return undefined;
      conditions.push(c);
    }
  }
  const asked: ImageOrderBy | undefined = body.orderBy === undefined ? undefined : orderByOf(body.orderBy);
  if (asked !== undefined && !poolOrderIsValid(asked, conditions)) return undefined;
  const request: ImageSearchRequest = {
    conditions,
    ...settleOrder(asked, body.order === 'asc' || body.order === 'desc' ? body.order : undefined, conditions),
  };
  if (body.facets !== undefined) {
    const f = body.facets;
    if (
      !Array.isArray(f) ||
      f.length > FACETS.length ||
      !f.every((x) => typeof x === 'string' && FACET_NAMES.has(x)) ||
      new Set(f).size !== f.length
    )
      return undefined;
    request.facets = [...(f as Facet[])];
  }
  return { request, offset, limit: Math.min(limit, MAX_IMAGE_LIMIT) };
}
