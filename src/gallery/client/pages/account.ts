/** `/account`: the caller's account, the access key (shown on request, reset), and webhooks (./webhooks.ts). */
import { api, errorText, ok } from '../api.ts';
import { formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentUser } from '../session.ts';
import { webhooksSection } from './webhooks.ts';
import { appKeysSection } from './account-keys.ts';
import { passkeysSection } from './account-passkeys.ts';
import { blacklistSection, preferencesSection } from './account-preferences.ts';
import { PERMISSION_BITS } from '../permission-bits.ts';

const PERMISSION_NAMES = PERMISSION_BITS;

function accessKeySection(initial: string): HTMLElement {
  let key = initial;
  const msg = messageBox();
  const code = h('code', { id: 'access-key', class: 'key' });
  const shown = h('p', { hidden: true }, code);
  const toggle = h(
    'button',
    { type: 'button', class: 'secondary', 'aria-controls': 'access-key', 'aria-expanded': 'false' },
    'Show access key',
  );
  toggle.addEventListener('click', () => {
    shown.hidden = !shown.hidden;
    code.textContent = shown.hidden ? '' : key;
    toggle.textContent = shown.hidden ? 'Show access key' : 'Hide access key';
    toggle.setAttribute('aria-expanded', String(!shown.hidden));
  });
  const reset = h('button', { type: 'button', class: 'danger' }, 'Reset access key…');
  const confirmRow = h(
    'p',
    { hidden: true },
    'The current key stops working at once. ',
    h('button', { type: 'button', id: 'confirm-reset', class: 'danger' }, 'Yes, reset it'),
    ' ',
    h('button', { type: 'button', id: 'cancel-reset', class: 'secondary' }, 'Cancel'),
  );
  reset.addEventListener('click', () => {
    confirmRow.hidden = false;
    confirmRow.querySelector<HTMLButtonElement>('#cancel-reset')!.focus();
  });
  confirmRow.querySelector('#cancel-reset')!.addEventListener('click', () => {
    confirmRow.hidden = true;
    reset.focus();
  });
  confirmRow.querySelector('#confirm-reset')!.addEventListener('click', async () => {
    try {
      key = (await ok(api.GET('/api/account/reset-key'))).accessKey;
      confirmRow.hidden = true;
      shown.hidden = false;
      code.textContent = key;
      toggle.textContent = 'Hide access key';
      toggle.setAttribute('aria-expanded', 'true');
      msg.info('A new access key was made; the old one no longer works.');
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return h(
    'section',
    { 'aria-labelledby': 'key-h' },
    h('h2', { id: 'key-h' }, 'Access key'),
    h('p', {}, 'Programs send it as the X-Access-Key header. Treat it like a password.'),
    h('p', { class: 'actions' }, toggle, ' ', reset),
    shown,
    confirmRow,
    msg.el,
  );
}

export async function accountPage(): Promise<void> {
  const self = await currentUser();
  if (!self) {
    replace(
      main(),
      pageHeading('Account'),
      h(
        'p',
        {},
        h('a', { href: '/login?next=/account' }, 'Log in'),
        ' to see your account, or change what the gallery shows for this visit:',
      ),
      await preferencesSection(),
      await blacklistSection(false),
    );
    return;
  }
  const perms = PERMISSION_NAMES.filter(([bit]) => (self.permission & bit) !== 0).map(([, name]) => name);
  replace(
    main(),
    pageHeading(`Account: ${self.name}`),
    h(
      'dl',
      { class: 'details' },
      h('dt', {}, 'Name'),
      h('dd', {}, self.name),
      h('dt', {}, 'Email'),
      h('dd', {}, self.email ?? 'none'),
      h('dt', {}, 'May'),
      h('dd', {}, perms.length ? perms.join(', ') : 'only look'),
      h('dt', {}, 'Since'),
      h('dd', {}, formatDate(self.createdAt)),
    ),
    accessKeySection(self.accessKey ?? ''),
    await preferencesSection(),
    await blacklistSection(true),
    await appKeysSection(self),
    await passkeysSection(),
    await webhooksSection(),
  );
}
