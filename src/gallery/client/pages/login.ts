/**
 * `/login`: a password (POST /api/account/login) or a passkey (docs/decisions.md §14) sets the session
 * cookie; then back to where the person came from.
 */
import { onSubmit } from '../submit.ts';
import { api, errorText, ok, type Self } from '../api.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { features } from '../features.ts';
import { ceremonyText, signInWithPasskey } from '../passkey-ceremony.ts';
import { markSignedIn } from '../session.ts';

/** Only same-site paths: `next` must not send people elsewhere. */
function nextAddress(): string {
  const next = new URLSearchParams(location.search).get('next') ?? '/';
  return next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/';
}

function signedIn(self: Self): void {
  markSignedIn(self);
  location.assign(nextAddress());
}

function passkeySection(): HTMLElement {
  const msg = messageBox();
  const button = h('button', { type: 'button', id: 'passkey-login', class: 'secondary' }, 'Sign in with a passkey');
  button.addEventListener('click', async () => {
    msg.info('Waiting for your passkey…');
    try {
      signedIn(await signInWithPasskey());
    } catch (err) {
      msg.error(err instanceof Error && !('status' in err) ? ceremonyText(err) : errorText(err));
    }
  });
  return h(
    'section',
    { class: 'stack narrow', 'aria-label': 'Passkey' },
    h('p', {}, 'Or, without a password:'),
    button,
    msg.el,
  );
}

export async function loginPage(): Promise<void> {
  const msg = messageBox();
  const username = h('input', { id: 'username', name: 'username', autocomplete: 'username webauthn', required: true });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const form = h(
    'form',
    { class: 'stack narrow' },
    field(username, 'Username'),
    field(password, 'Password'),
    h('button', { type: 'submit' }, 'Log in'),
    msg.el,
  );
  onSubmit(
    form,
    msg,
    'Logging in…',
    async () =>
      signedIn(
        await ok(api.POST('/api/account/login', { body: { username: username.value, password: password.value } })),
      ),
    () => password.select(),
  );
  const { passkeys, registration } = features();
  replace(
    main(),
    pageHeading('Log in'),
    form,
    passkeys ? passkeySection() : null,
    registration ? h('p', {}, 'New here? ', h('a', { href: '/signup' }, 'Create an account'), '.') : null,
  );
  username.focus();
}
