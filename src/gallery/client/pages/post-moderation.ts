/**
 * The post page's moderation controls (docs/decisions.md §15): "Request deletion" with a reason for anyone
 * signed in, and "Merge into this" beside each near-duplicate for holders of 0x2000.
 */
import { onSubmit } from '../submit.ts';
import { api, errorText, ok, type Post } from '../api.ts';
import { field, h, messageBox } from '../dom.ts';

const MAX_REASON = 2000;

export function deletionRequestForm(post: Post): HTMLElement {
  const msg = messageBox();
  const reason = h('textarea', {
    id: 'deletion-reason',
    name: 'reason',
    rows: 3,
    maxlength: MAX_REASON,
    required: true,
  });
  const form = h(
    'form',
    { class: 'stack', hidden: true },
    ...field(reason, 'Why should it go?'),
    h('button', { type: 'submit' }, 'Send request'),
  );
  const open = h(
    'button',
    { type: 'button', class: 'secondary', 'aria-expanded': 'false', 'aria-controls': 'deletion-form' },
    'Request deletion…',
  );
  form.id = 'deletion-form';
  open.addEventListener('click', () => {
    form.hidden = !form.hidden;
    open.setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) reason.focus();
  });
  onSubmit(form, msg, 'Sending…', async () => {
    await ok(
      api.POST('/api/post/{id}/deletion-request', {
        params: { path: { id: post.id } },
        body: { reason: reason.value },
      }),
    );
    form.hidden = true;
    open.remove();
    msg.info('Your request was sent to the moderators.');
  });
  return h(
    'section',
    { class: 'request-deletion', 'aria-labelledby': 'request-h' },
    h('h2', { id: 'request-h' }, 'Request deletion'),
    open,
    form,
    msg.el,
  );
}

/**
 * Adds "Merge into this" under each near-duplicate of `post` in a grid of links to posts: this post
 * is merged into that one (its tags join, it is deleted), then the page moves to the one kept.
 */
export function addMergeButtons(gridEl: HTMLElement, post: Post): void {
  for (const li of gridEl.querySelectorAll('li')) {
    const link = li.querySelector('a');
    const into = link?.getAttribute('href')?.replace(/^\/post\//, '');
    if (!into) continue;
    const msg = messageBox();
    const button = h(
      'button',
      {
        type: 'button',
        class: 'secondary merge',
        'aria-label': `Merge this post into post ${into.slice(0, 8)}: its tags join that post and this one is deleted`,
      },
      'Merge into this',
    );
    button.addEventListener('click', async () => {
      button.disabled = true;
      msg.info('Merging…');
      try {
        await ok(api.POST('/api/post/{id}/merge', { params: { path: { id: post.id } }, body: { into } }));
        location.assign(`/post/${into}`);
      } catch (err) {
        button.disabled = false;
        msg.error(errorText(err));
      }
    });
    li.append(button, msg.el);
  }
}
