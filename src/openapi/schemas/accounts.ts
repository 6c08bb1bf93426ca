/** The caller's account, its access key, and a failed log-in. */
import { z } from '../../util/zod.ts';
import { isoTime } from '../../kernel/shapes.ts';

export { User } from '../../kernel/shapes.ts';

export const Self = z
  .object({
    id: z.number().int(),
    name: z.string(),
    email: z.string().nullable(),
    permission: z
      .number()
      .int()
      .openapi({ description: 'bits: 0x1 super user, 0x2 create post, 0x4 edit post, 0x2000 delete post' }),
    accessKey: z
      .string()
      .regex(/^[A-Za-z0-9_]+$/)
      .optional()
      .openapi({
        description:
          'send as X-Access-Key; treat it as a password. Absent when the request was made with an app key (docs/decisions.md §14)',
      }),
    createdAt: isoTime,
  })
  .strict()
  .openapi('Self', { description: "The caller's own account. Never carries passwordHash." });

export const LoginFailure = z
  .string()
  .openapi('LoginFailure', { description: 'a JSON string', example: 'invalid username/password' });

export const AccessKey = z
  .object({ accessKey: z.string().regex(/^[A-Za-z0-9_]+$/) })
  .strict()
  .openapi('AccessKey');
