/** The votes feature's request and response shapes (docs/decisions.md §18): declared once, typed from here. */
import { z } from '../util/zod.ts';

/** `PUT /api/post/[id]/vote`: `{ value: 1 | -1 }`. */
export const VoteBody = z
  .object({
    value: z.union([z.literal(1), z.literal(-1)], { errorMap: () => ({ message: 'value must be 1 or -1' }) }),
  })
  .strict();

export const VoteResult = z
  .object({
    score: z.number().int(),
    upvotes: z.number().int().min(0),
    downvotes: z.number().int().min(0),
    value: z.union([z.literal(1), z.literal(-1)]),
  })
  .strict()
  .openapi('VoteResult', { description: "the post's counts after the vote, and the caller's vote" });
/** `PUT /api/post/[id]/vote`'s answer: the post's counts after the vote, and the caller's vote. */
export type VoteResult = z.infer<typeof VoteResult>;

export const MyVote = z
  .object({ value: z.union([z.literal(1), z.literal(-1), z.literal(0)]) })
  .strict()
  .openapi('MyVote', { description: "the caller's vote; 0 when none" });
export type MyVote = z.infer<typeof MyVote>;
