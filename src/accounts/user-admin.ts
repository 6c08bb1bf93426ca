import { AppError, notFound } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import { hasPermission, heldBits, PERMISSION } from './permissions.ts';
import { checkPermission, validateNewUser } from './account-rules.ts';
import type { AccountService, UserSummary } from './service.ts';
import type { UserRecord } from './user-repository.ts';

const summary = ({ id, name, email, permission, createdAt }: UserRecord): UserSummary => ({
  id,
  name,
  email,
  permission,
  createdAt,
});

export interface UserPatch {
  name?: string;
  email?: string | null;
  permission?: number;
}

/**
 * The user admin API (docs/decisions.md §14), with the original's bits: 0x100 list, 0x200 edit another's
 * name and email, 0x400 delete, 0x800 assign permissions (only bits the caller holds; the
 * super-user bit only by a super user). The last super user can be neither demoted nor deleted.
 */
export class UserAdmin {
  constructor(private readonly accounts: AccountService) {}

  private get users() {
    return this.accounts.users;
  }

  list(caller: AuthUser, prefix: string, offset: number, limit: number): { count: number; data: UserSummary[] } {
    this.require(caller, PERMISSION.listUsers, 'listing users needs permission 0x100');
    const { count, rows } = this.users.listByPrefix(prefix, offset, limit);
    return { count, data: rows.map(summary) };
  }

  private target(id: number): UserRecord {
    const user = Number.isSafeInteger(id) ? this.users.getById(id) : undefined;
    if (!user) throw notFound('no such user');
    return user;
  }

  private require(caller: AuthUser, bit: number, message: string): void {
    if (!hasPermission(caller, bit)) throw new AppError('forbidden', message);
  }

  /** Checks everything first, then writes once: a refused patch changes nothing. */
  patch(caller: AuthUser, id: number, patch: UserPatch): UserSummary {
    const user = this.target(id);
    const profile = patch.name !== undefined || patch.email !== undefined;
    // One's own email and name are one's own; another's need 0x200.
    if (profile && user.id !== caller.id)
      this.require(caller, PERMISSION.editUsers, "editing another user's name or email needs permission 0x200");
    const name = patch.name ?? user.name;
    // validateNewUser checks name and email by the CLI's rules; the password placeholder is never stored.
    const { email } = validateNewUser({
      name,
      password: 'x'.repeat(8),
      email: patch.email === undefined ? user.email : patch.email,
    });
    if (patch.permission !== undefined) this.checkGrant(caller, user, patch.permission);
    if (name.toLowerCase() !== user.name.toLowerCase() && this.users.getByName(name))
      throw new AppError('conflict', `user name "${name}" is already taken`);
    this.accounts.db
      .transaction(() => {
        if (profile) this.users.setProfile(user.id, { name, email });
        if (patch.permission !== undefined) {
          // Re-checked inside the write, so two admins demoting the last two super users at once cannot both succeed.
          this.guardLastSuperUser(user, patch.permission);
          this.users.setPermission(user.id, patch.permission);
        }
      })
      .immediate();
    return summary(this.users.getById(user.id)!);
  }

  private checkGrant(caller: AuthUser, user: UserRecord, permission: number): void {
    checkPermission(permission);
    this.require(caller, PERMISSION.assignPermissions, 'assigning permissions needs permission 0x800');
    const changed = user.permission ^ permission;
    if (changed & PERMISSION.superUser && !(caller.permission & PERMISSION.superUser))
      throw new AppError('forbidden', 'only a super user can grant or revoke the super-user bit');
    const lacking = changed & ~heldBits(caller.permission);
    if (lacking !== 0)
      throw new AppError('forbidden', `you can only grant or revoke bits you hold; you lack 0x${lacking.toString(16)}`);
    this.guardLastSuperUser(user, permission);
  }

  private guardLastSuperUser(user: UserRecord, permission: number | null): void {
    const current = this.users.getById(user.id);
    const losing =
      current !== undefined &&
      current.permission & PERMISSION.superUser &&
      (permission === null || !(permission & PERMISSION.superUser));
    if (losing && this.users.countSuperUsers() <= 1)
      throw new AppError('conflict', 'this is the last super user; make another one first');
  }

  remove(caller: AuthUser, id: number): { id: number; name: string; disownedPosts: number } {
    this.require(caller, PERMISSION.deleteUsers, 'deleting users needs permission 0x400');
    const user = this.target(id);
    if (user.permission & PERMISSION.superUser && !(caller.permission & PERMISSION.superUser))
      throw new AppError('forbidden', 'only a super user can delete a super user');
    this.guardLastSuperUser(user, null);
    return this.accounts.removeUser(user);
  }
}
