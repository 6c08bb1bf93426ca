/** `/login`: POST /api/account/login sets the session cookie; then back to where the person came from. */
import { api, errorText, ok } from '../api.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { markSignedIn } from '../session.ts';

/** Only same-site paths: `next` must not send people elsewhere. */
function nextAddress(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/';
}

export async function loginPage(): Promise<void> {
  const msg = messageBox();
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', name: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const form = h('form', { class: 'stack narrow' }, field(username, 'Username'), field(password, 'Password'), h('button', { type: 'submit' }, 'Log in'), msg.el);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.info('Logging in…');
    try {
      const self = await ok(api.POST('/api/account/login', { body: { username: username.value, password: password.value } }));
      markSignedIn(self);
      location.assign(nextAddress());
    } catch (err) {
      msg.error(errorText(err));
      password.select();
    }
  });
  replace(main(), pageHeading('Log in'), form);
  username.focus();
}
