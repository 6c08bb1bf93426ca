import type Koa from 'koa';
import { AppError } from '../errors.ts';
import type { AppState, AuthUser } from '../http/context.ts';

/** Permission bits, the original's values (docs/decisions.md §2). */
export const PERMISSION = {
  superUser: 0x1,
  createPost: 0x2,
  editPost: 0x4,
  // docs/decisions.md §14: user administration
  listUsers: 0x100,
  editUsers: 0x200,
  deleteUsers: 0x400,
  assignPermissions: 0x800,
  // docs/decisions.md §15: govern the tag vocabulary (aliases, implications)
  manageTags: 0x1000,
  deletePost: 0x2000,
  // docs/decisions.md §18: write comments
  comment: 0x4000,
} as const;

/** Every bit a permission grants: a super user holds them all (what an app key or a grant may take from it). */
export const heldBits = (permission: number): number =>
  (permission & PERMISSION.superUser) !== 0 ? 0xffff : permission;

/** A new account's bits unless told otherwise: upload, edit, comment (docs/decisions.md §18). */
export const DEFAULT_PERMISSION = PERMISSION.createPost | PERMISSION.editPost | PERMISSION.comment;

export const hasPermission = (user: AuthUser, bit: number): boolean =>
  (user.permission & PERMISSION.superUser) !== 0 || (user.permission & bit) === bit;

/** The caller, or 401. */
export function currentUser(ctx: Koa.ParameterizedContext<AppState>): AuthUser {
  if (!ctx.state.user) throw new AppError('unauthenticated', 'authentication required');
  return ctx.state.user;
}

/** 401 without a valid credential, 403 without the bit. */
export function requirePermission(bit: number): Koa.Middleware<AppState> {
  return async (ctx, next) => {
    if (!hasPermission(currentUser(ctx), bit)) throw new AppError('forbidden', 'permission denied');
    await next();
  };
}

export const requireAuth: Koa.Middleware<AppState> = async (ctx, next) => {
  currentUser(ctx);
  await next();
};

/**
 * 403 for a request made with an app key: keys, passkeys and the account key are the account's own business
 * (docs/decisions.md §14).
 */
export function requireAccountCredential(ctx: Koa.ParameterizedContext<AppState>): AuthUser {
  const user = currentUser(ctx);
  if (user.appKeyId !== undefined)
    throw new AppError('forbidden', 'an app key cannot manage keys, passkeys or the account key');
  return user;
}

/**
 * The gate of an operation only the account itself may call (docs/decisions.md §14): 401 without a
 * credential, 403 for an app key.
 */
export const requireAccount: Koa.Middleware<AppState> = async (ctx, next) => {
  requireAccountCredential(ctx);
  await next();
};
