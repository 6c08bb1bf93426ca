/**
 * Users' display names, which posts (uploader) and versions (editor) show but the kernel does not
 * own: the users table is the accounts' (src/accounts/user-repository.ts implements this), so the
 * kernel's repositories are handed a reader instead of joining a table that is not theirs.
 */
export interface UserNames {
  /** The names of those of `ids` that are users; ids of deleted users are left out. */
  namesOf(ids: readonly number[]): Map<number, string>;
}

/** The names of the non-null ids among `ids`, asked once. */
export function namesFor(users: UserNames, ids: Iterable<number | null>): Map<number, string> {
  const wanted = [...new Set([...ids].filter((id): id is number => id !== null))];
  return wanted.length === 0 ? new Map() : users.namesOf(wanted);
}
