import { z } from 'zod';
import { invalid } from '../errors.ts';
import { DEFAULT_PERMISSION } from './permissions.ts';

/** An account's rules: its name, password, e-mail address and permission. */

/** docs/decisions.md §2 */
export const NAME_PATTERN = /^[a-zA-Z0-9_]{4,32}$/;
export const MIN_PASSWORD_LENGTH = 8;
// scrypt reads the whole password; an upper bound keeps a login from hashing megabytes.
export const MAX_PASSWORD_LENGTH = 1024;
/** Every defined bit fits in 16 bits (0xFF1F is everything). */
export const MAX_PERMISSION = 0xffff;

export interface NewUserInput {
  name: string;
  password: string;
  permission?: number;
  email?: string | null;
}

const emailSchema = z.string().trim().email().max(254);

/** Checks a new account's fields (also used by the CLI before it opens the database). */
export function validateNewUser(input: NewUserInput): { permission: number; email: string | null } {
  if (!NAME_PATTERN.test(input.name))
    throw invalid(['name'], 'name must be 4 to 32 letters, digits or underscores', 'invalid_string');
  if (input.password.length < MIN_PASSWORD_LENGTH)
    throw invalid(['password'], `password must have at least ${MIN_PASSWORD_LENGTH} characters`, 'too_small');
  if (input.password.length > MAX_PASSWORD_LENGTH)
    throw invalid(['password'], `password must have at most ${MAX_PASSWORD_LENGTH} characters`, 'too_big');
  const permission = input.permission ?? DEFAULT_PERMISSION;
  checkPermission(permission);
  let email: string | null = null;
  if (input.email !== undefined && input.email !== null && input.email !== '') {
    const parsed = emailSchema.safeParse(input.email);
    if (!parsed.success) throw invalid(['email'], 'email is not a valid address', 'invalid_string');
    email = parsed.data;
  }
  return { permission, email };
}

export function checkPermission(permission: number): void {
  if (!Number.isInteger(permission) || permission < 0 || permission > MAX_PERMISSION)
    throw invalid(['permission'], `permission must be an integer from 0 to 0x${MAX_PERMISSION.toString(16)}`);
}
