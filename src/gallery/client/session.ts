/**
 * Who is logged in. The session cookie is HttpOnly, so the page cannot see it: after a login the
 * page keeps a marker (the name only, never the key) in localStorage and asks GET /api/account only
 * when the marker is there, so a visitor who never logged in causes no 401s.
 */
import { api, ApiError, can, ok, PERMISSION, type Self } from './api.ts';
import { h, replace } from './dom.ts';

const MARKER = 'imgpost.signedIn';

let current: Promise<Self | undefined> | undefined;

export function markSignedIn(self: Self): void {
  localStorage.setItem(MARKER, self.name);
  current = Promise.resolve(self);
}

export function markSignedOut(): void {
  localStorage.removeItem(MARKER);
  current = Promise.resolve(undefined);
}

/** The caller's account, or undefined when nobody is logged in (or the session ended). */
export function currentUser(): Promise<Self | undefined> {
  current ??= (async () => {
    if (!localStorage.getItem(MARKER)) return undefined;
    try {
      return await ok(api.GET('/api/account'));
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        localStorage.removeItem(MARKER);
        return undefined;
      }
      throw err;
    }
  })();
  return current;
}

/** The header's account entry: "Log in", or the name (to /account) and a log-out button. */
export async function renderAccountNav(): Promise<void> {
  const slot = document.getElementById('nav-account');
  if (!slot) return;
  const self = await currentUser().catch(() => undefined);
  if (!self) {
    replace(slot, h('a', { href: `/login?next=${encodeURIComponent(location.pathname + location.search)}` }, 'Log in'));
    return;
  }
  // A real form: the server clears the HttpOnly cookie (POST /logout), then the marker goes too.
  const form = h(
    'form',
    { method: 'post', action: '/logout', class: 'logout', onsubmit: () => localStorage.removeItem(MARKER) },
    h('button', { type: 'submit' }, 'Log out'),
  );
  // Moderators reach the queue from every page; others find their own requests there too.
  const queue = can(self, PERMISSION.delete) ? [h('a', { href: '/moderation' }, 'Moderation'), ' '] : [];
  const admin = (self.permission & 0x1) !== 0 || (self.permission & 0x100) !== 0;
  replace(
    slot,
    h('a', { href: '/favorites' }, 'Favorites'),
    ' ',
    ...queue,
    admin ? h('a', { href: '/admin/users' }, 'Users') : null,
    admin ? ' ' : null,
    h('a', { href: '/account' }, self.name),
    ' ',
    form,
  );
}
