/**
 * The account page's passkeys (docs/decisions.md §14): add one (a browser ceremony), list, remove. Hidden when the
 * server cannot offer them.
 */
import { api, errorText, ok, type Schemas } from '../api.ts';
import { field, formatDate, h, messageBox } from '../dom.ts';
import { removableRows } from '../removable-rows.ts';
import { features } from '../features.ts';
import { addPasskey, ceremonyText } from '../passkey-ceremony.ts';

type Passkey = Schemas['Passkey'];

export async function passkeysSection(): Promise<HTMLElement | null> {
  if (!features().passkeys) return null;
  const msg = messageBox();
  const list = h('ul', { class: 'rows', 'aria-label': 'Passkeys' });
  const render = (keys: Passkey[]) =>
    removableRows(list, keys, {
      verb: 'Remove',
      empty: 'No passkeys yet.',
      msg,
      describe: (p) => [
        ` · added ${formatDate(p.createdAt)}`,
        p.lastUsedAt ? ` · last used ${formatDate(p.lastUsedAt)}` : ' · never used',
      ],
      remove: (p) => ok(api.DELETE('/api/account/passkeys/{id}', { params: { path: { id: String(p.id) } } })),
      done: (p) => `Removed ${p.name}.`,
      reload,
    });
  const reload = async () => render(await ok(api.GET('/api/account/passkeys')));

  const name = h('input', { id: 'passkey-name', name: 'name', maxlength: 64, placeholder: 'e.g. laptop' });
  const form = h(
    'form',
    { class: 'stack' },
    field(name, 'Passkey name (optional)'),
    h('button', { type: 'submit', id: 'add-passkey' }, 'Add a passkey'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.info("Follow your browser's prompt…");
    try {
      const added = await addPasskey(name.value.trim());
      msg.info(`Added ${added.name}: you can sign in with it now.`);
      name.value = '';
      await reload();
    } catch (err) {
      msg.error(err instanceof Error && !('status' in err) ? ceremonyText(err) : errorText(err));
    }
  });
  await reload();
  return h(
    'section',
    { 'aria-labelledby': 'passkeys-h' },
    h('h2', { id: 'passkeys-h' }, 'Passkeys'),
    h('p', {}, 'Sign in with your device instead of a password.'),
    list,
    form,
    msg.el,
  );
}
