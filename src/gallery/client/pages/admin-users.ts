/**
 * `/admin/users` (docs/decisions.md §14), for holders of 0x100: the accounts, by name prefix, paged; holders
 * of 0x800 change a permission (only bits they hold themselves; the server checks it again).
 */
import { api, errorText, ok, type Schemas } from '../api.ts';
import { field, formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentPage, pager } from '../grid.ts';
import { bitBoxes, holds, PERMISSION_BITS } from '../permission-bits.ts';
import { currentUser } from '../session.ts';

const PAGE_SIZE = 50;
type User = Schemas['UserSummary'];

const describe = (permission: number) =>
  PERMISSION_BITS.filter(([bit]) => (permission & bit) === bit)
    .map(([, name]) => name)
    .join(', ') || 'only look';

function permissionEditor(user: User, callerPermission: number, onSaved: (u: User) => void): HTMLElement {
  const msg = messageBox();
  const boxes = bitBoxes(`perm-${user.id}`, `Permission of ${user.name}`, callerPermission, user.permission);
  const form = h(
    'form',
    { class: 'stack' },
    boxes.el,
    h('button', { type: 'submit' }, `Save ${user.name}'s permission`),
    msg.el,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    // Bits the caller cannot grant stay as they are.
    const permission = (user.permission & ~callerPermission) | boxes.value();
    try {
      const saved = (await ok(
        api.PATCH('/api/user/{id}', { params: { path: { id: String(user.id) } }, body: { permission } }),
      )) as User;
      msg.info(`Saved: ${describe(saved.permission)}.`);
      onSaved(saved);
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h('details', {}, h('summary', {}, 'Change permission'), form);
}

export async function adminUsersPage(): Promise<void> {
  const self = await currentUser();
  if (!self || !holds(self.permission, 0x100)) {
    replace(
      main(),
      pageHeading('Users'),
      h(
        'p',
        {},
        'Only user admins (permission 0x100) see this page. ',
        self ? '' : h('a', { href: '/login?next=/admin/users' }, 'Log in'),
      ),
    );
    return;
  }
  const params = new URLSearchParams(location.search);
  const prefix = params.get('prefix') ?? '';
  const page = currentPage();
  const result = await ok(
    api.GET('/api/user', {
      params: { query: { prefix: prefix || undefined, offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } as never },
    }),
  );
  const assigns = holds(self.permission, 0x800);
  const callerBits = (self.permission & 0x1) !== 0 ? 0xffff : self.permission;
  const filter = h('input', { id: 'user-prefix', name: 'prefix', type: 'search', value: prefix });
  const rows = result.data.map((u) => {
    const perm = h('td', {}, h('code', {}, `0x${u.permission.toString(16)}`), ' ', describe(u.permission));
    return h(
      'tr',
      {},
      h('th', { scope: 'row' }, u.name),
      h('td', {}, u.email ?? '—'),
      perm,
      h('td', {}, formatDate(u.createdAt)),
      h(
        'td',
        {},
        assigns
          ? permissionEditor(u, callerBits, (saved) =>
              replace(perm, h('code', {}, `0x${saved.permission.toString(16)}`), ' ', describe(saved.permission)),
            )
          : '',
      ),
    );
  });
  replace(
    main(),
    pageHeading('Users'),
    h(
      'form',
      { class: 'inline', method: 'get', action: '/admin/users', role: 'search' },
      field(filter, 'Name starts with'),
      h('button', { type: 'submit' }, 'Filter'),
    ),
    h('p', { class: 'count' }, `${result.count} ${result.count === 1 ? 'account' : 'accounts'}`),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'users' },
        h('caption', {}, 'Accounts'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Name', 'Email', 'Permission', 'Since', ''].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h('tbody', {}, rows),
      ),
    ),
    pager(
      page,
      result.count,
      PAGE_SIZE,
      (n) => `/admin/users?${new URLSearchParams({ ...(prefix ? { prefix } : {}), page: String(n) })}`,
    ),
  );
}
