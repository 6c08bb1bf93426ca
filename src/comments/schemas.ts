import { User } from '../kernel/shapes.ts';
import { z } from '../util/zod.ts';
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

/** The API's Comment (docs/decisions.md §18). */
export const Comment = z
  .object({
    id: z.number().int().min(1),
    postId: z.string().uuid(),
    author: z.union([User, z.null()]).openapi({ description: 'null once the account is deleted' }),
    body: z.string().openapi({
      description: 'plain text: line breaks kept, http(s) links and `post #N` made links by clients, nothing else',
    }),
    createdAt: z.string().datetime(),
    updatedAt: z.string().datetime(),
    edited: z.boolean(),
    // docs/decisions.md §22
    originAuthor: z
      .string()
      .optional()
      .openapi({ description: "only on an imported comment: its author's name on the board it came from" }),
  })
  .strict()
  .openapi('Comment');
export type CommentView = z.infer<typeof Comment>;

export const CommentPage = z
  .object({ count: z.number().int().min(0), data: z.array(Comment) })
  .strict()
  .openapi('CommentPage', { description: '`count` is the total; `data` is the requested slice' });
export type CommentPage = z.infer<typeof CommentPage>;
