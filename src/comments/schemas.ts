import { z } from 'zod';
import { listQuery } from '../search/paging-params.ts';

/** docs/decisions.md §18: a comment's body is 1 to 10,000 characters (code points) after trimming. */
export const MAX_COMMENT = 10_000;

/** `POST /api/post/[id]/comment` and `PATCH /api/comment/[id]`: `{ body }`, stored trimmed. */
export const CommentBody = z
  .object({
    body: z
      .string()
      .transform((s) => s.trim())
      .pipe(
        z
          .string()
          .min(1, 'a comment must not be empty')
          .superRefine((s, ctx) => {
            if (Array.from(s).length > MAX_COMMENT)
              ctx.addIssue({
                code: 'too_big',
                maximum: MAX_COMMENT,
                type: 'string',
                inclusive: true,
                message: `a comment is at most ${MAX_COMMENT} characters`,
              });
          }),
      ),
  })
  .strict();

/** `GET /api/comment?author&offset&limit`: the newest comments, site-wide or of one author (a username). */
export const NewestCommentsQuery = listQuery.extend({
  author: z.string().trim().min(1, 'author must not be empty').max(64, 'author is at most 64 characters').optional(),
});

/** Comment ids are positive integers; anything else names no comment (404). */
export const COMMENT_ID = /^[1-9]\d{0,15}$/;
