import { z } from 'zod';
import { queryInt } from '../../http/validate.ts';

/** A page of children holds at most this many; a larger limit is lowered to it. */
export const MAX_CHILDREN_LIMIT = 100;

export const ChildrenQuery = z.object({
  offset: queryInt({ min: 0, default: 0 }),
  limit: queryInt({ min: 0, default: 24 }).transform((n) => Math.min(n, MAX_CHILDREN_LIMIT)),
});
