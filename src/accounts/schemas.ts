import { z } from 'zod';
import { MAX_TTL_SECONDS } from './session-cookie.ts';

/**
 * POST /api/account/login (spec §4.1, decisions §2). Unknown fields are dropped rather than
 * refused, as clients of the original send extras. A name that cannot exist is not a schema
 * error: it is a failed login like any other, so the answer does not tell names apart.
 */
export const loginSchema = z.object({
  username: z.string(),
  password: z.string(),
  ttl: z.number().int().min(1).max(MAX_TTL_SECONDS).optional(),
});

export type LoginInput = z.infer<typeof loginSchema>;
