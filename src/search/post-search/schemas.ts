import { z } from 'zod';
import { RATINGS } from '../../kernel/post-record.ts';
import { parse } from '../../http/validate.ts';
import { DATE_FORMS, DATE_OPS, parseSpan, type Span } from './dates.ts';

/** `POST /api/post/search` request shapes (docs/decisions.md §6). Every object is strict. */

const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}Z)?$/;
const dateValue = z
  .string()
  .regex(DATE_SHAPE, `expected a date of the form ${DATE_FORMS} (no offsets)`)
  // One issue per value: the shape check above already reported a malformed one.
  .refine(
    (v) => !DATE_SHAPE.test(v) || parseSpan(v) !== undefined,
    (v) => ({ message: `${v} is not a valid date` }),
  )
  .transform((v) => parseSpan(v) as Span);

export const selector = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), op: z.enum(['contains', 'not_contains']), value: z.string() }).strict(),
  z.object({ type: z.literal('id'), op: z.literal('contains'), value: z.string() }).strict(),
  z.object({ type: z.literal('tag'), op: z.enum(['include', 'exclude']), value: z.string() }).strict(),
  // The spec gives rating no op; `eq` is tolerated for clients that send one anyway.
  z.object({ type: z.literal('rating'), op: z.literal('eq').optional(), value: z.enum(RATINGS) }).strict(),
  z.object({ type: z.enum(['createdAt', 'updatedAt']), op: z.enum(DATE_OPS), value: dateValue }).strict(),
  z.object({ type: z.literal('system'), op: z.enum(['untagged', 'disowned']) }).strict(),
  // docs/decisions.md §23: has notes (true) or none (false)
  z.object({ type: z.literal('hasNotes'), value: z.boolean() }).strict(),
]);
export type Selector = z.output<typeof selector>;

export const ORDER_KEYS = ['createdAt', 'uploaderId', 'id'] as const;
const orderItem = z.object({ key: z.enum(ORDER_KEYS), direction: z.enum(['asc', 'desc']).default('asc') }).strict();
export type OrderItem = z.output<typeof orderItem>;

// Exported (with `selector`) for the OpenAPI document.
export const body = z
  .object({
    // Checked item by item below, so that selector issues get paths relative to the array.
    filter: z
      .array(z.unknown())
      .min(1, 'filter must hold at least one selector')
      .max(50, 'filter holds at most 50 selectors')
      .optional(),
    order: z.array(orderItem).max(3, 'order holds at most 3 items').optional(),
  })
  .strict();

export interface SearchRequest {
  filter: Selector[];
  order: OrderItem[];
}

/** Parses the body (absent means `{}`) or throws the 400 issue array. */
export function parseSearchBody(input: unknown): SearchRequest {
  const parsed = parse(body, input === undefined ? {} : input);
  // Paths such as [0, 'value']: the spec's form for selector issues (docs/decisions.md §3).
  const filter = parsed.filter ? parse(z.array(selector), parsed.filter) : [];
  return { filter, order: parsed.order ?? [{ key: 'id', direction: 'asc' }] };
}
