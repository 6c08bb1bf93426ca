/**
 * The account page's app keys (docs/decisions.md §14): create with a subset of the account's bits (the key shown once,
 * with a copy button), list, revoke.
 */
import { api, errorText, ok, type Schemas, type Self } from '../api.ts';
import { field, formatDate, h, messageBox, replace } from '../dom.ts';
import { removableRows } from '../removable-rows.ts';
import { bitBoxes, PERMISSION_BITS } from '../permission-bits.ts';

type AppKey = Schemas['AppKey'];

const bitsText = (p: number) =>
  PERMISSION_BITS.filter(([bit]) => (p & bit) === bit)
    .map(([, n]) => n)
    .join(', ') || 'only look';

async function copyText(text: string, msg: ReturnType<typeof messageBox>): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
    msg.info('Copied. It will not be shown again.');
  } catch {
    msg.error('The browser did not allow copying: select the key and copy it by hand.');
  }
}

export async function appKeysSection(self: Self): Promise<HTMLElement> {
  const msg = messageBox();
  const list = h('ul', { class: 'rows', 'aria-label': 'App keys' });
  const fresh = h('div', { class: 'fresh-key', 'aria-live': 'polite' });
  const held = (self.permission & 0x1) !== 0 ? 0xffff : self.permission;

  const render = (keys: AppKey[]) =>
    removableRows(list, keys, {
      verb: 'Revoke',
      empty: 'No app keys.',
      msg,
      describe: (k) => [` · ${bitsText(k.permission)} · ${formatDate(k.createdAt)}`],
      remove: (k) => ok(api.DELETE('/api/account/keys/{id}', { params: { path: { id: String(k.id) } } })),
      done: (k) => `Revoked ${k.name}; it no longer works.`,
      reload,
    });
  const reload = async () => render(await ok(api.GET('/api/account/keys')));

  const name = h('input', { id: 'app-key-name', name: 'name', required: true, maxlength: 64 });
  const bits = bitBoxes('app-key-bit', 'What the key may do (a subset of what you may)', held, 0);
  const form = h(
    'form',
    { class: 'stack' },
    field(name, 'App key name'),
    bits.el,
    h('button', { type: 'submit' }, 'Create app key'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const created = await ok(api.POST('/api/account/keys', { body: { name: name.value, permission: bits.value() } }));
      const keyMsg = messageBox();
      const copy = h('button', { type: 'button', id: 'copy-app-key' }, 'Copy key');
      copy.addEventListener('click', () => void copyText(created.key, keyMsg));
      replace(
        fresh,
        h('p', {}, `The key of ${created.name}, shown this once:`),
        h('p', {}, h('code', { class: 'key', id: 'new-app-key' }, created.key)),
        h('p', {}, copy),
        keyMsg.el,
      );
      name.value = '';
      copy.focus();
      await reload();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  await reload();
  return h(
    'section',
    { 'aria-labelledby': 'keys-h' },
    h('h2', { id: 'keys-h' }, 'App keys'),
    h('p', {}, 'Give a program its own key with only the permission it needs; revoke it any time.'),
    list,
    form,
    fresh,
    msg.el,
  );
}
