/**
 * `/signup` (docs/decisions.md §14): POST /api/account/register when the operator opened sign-up; it signs the person
 * in.
 */
import { onSubmit } from '../submit.ts';
import { api, ok } from '../api.ts';
import { features } from '../features.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { markSignedIn } from '../session.ts';

export async function signupPage(): Promise<void> {
  if (!features().registration) {
    replace(
      main(),
      pageHeading('Sign up'),
      h(
        'p',
        {},
        'Sign-up is closed on this server. Ask its operator for an account, or ',
        h('a', { href: '/login' }, 'log in'),
        '.',
      ),
    );
    return;
  }
  const msg = messageBox();
  const username = h('input', {
    id: 'username',
    name: 'username',
    autocomplete: 'username',
    required: true,
    minlength: 4,
    maxlength: 32,
    pattern: '[A-Za-z0-9_]{4,32}',
    'aria-describedby': 'username-help',
  });
  const email = h('input', { id: 'email', name: 'email', type: 'email', autocomplete: 'email' });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'new-password',
    required: true,
    minlength: 8,
  });
  const form = h(
    'form',
    { class: 'stack narrow' },
    field(username, 'Username'),
    h('p', { id: 'username-help', class: 'muted' }, '4 to 32 letters, digits or underscores.'),
    field(email, 'Email (optional)'),
    field(password, 'Password (at least 8 characters)'),
    h('button', { type: 'submit' }, 'Create account'),
    msg.el,
  );
  onSubmit(form, msg, 'Creating the account…', async () => {
    const self = await ok(
      api.POST('/api/account/register', {
        body: { username: username.value, password: password.value, ...(email.value ? { email: email.value } : {}) },
      }),
    );
    markSignedIn(self);
    location.assign('/account');
  });
  replace(
    main(),
    pageHeading('Sign up'),
    form,
    h('p', {}, 'Have an account? ', h('a', { href: '/login' }, 'Log in'), '.'),
  );
  username.focus();
}
