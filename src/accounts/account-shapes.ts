/** The caller's account, its access key, and a failed log-in (docs/decisions.md §2): declared once. */
import type { Reply } from '../http/endpoint.ts';
import { isoTime, z } from '../util/zod.ts';

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

/**
 * The spec's Self, as docs/decisions.md §2 fixes it: never passwordHash. The access key is always
 * there in what the service builds; a response to an app key leaves it out.
 */
export type Self = z.infer<typeof Self> & { accessKey: string };

/** The reply of every operation that signs the caller in: Self, and the session cookie. */
export const signedIn = (description: string): Reply => ({
  description,
  schema: Self,
  headers: {
    'Set-Cookie': {
      description: 'nmsl_cookie=...; Path=/; Expires; Max-Age; Secure; HttpOnly; SameSite=lax',
      schema: { type: 'string' },
    },
  },
});
