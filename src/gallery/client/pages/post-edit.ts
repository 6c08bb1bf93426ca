/** The editor's form (PUT /api/post/<id>) and the deleter's two-step delete (DELETE). */
import { onSubmit } from '../submit.ts';
import { api, errorText, ok, type Post, type Rating } from '../api.ts';
import { field, h, messageBox, type Child } from '../dom.ts';
import { attachTagSuggestions } from '../suggest.ts';

export const RATINGS: Rating[] = ['none', 'moderate', 'violent'];

export function ratingSelect(id: string, value: Rating): HTMLSelectElement {
  return h(
    'select',
    { id, name: 'rating' },
    RATINGS.map((r) => h('option', { value: r, selected: r === value }, r)),
  );
}

/** Tags typed as space-separated names (tag names hold no whitespace, docs/decisions.md §4). */
export const splitTags = (s: string) => [...new Set(s.split(/\s+/).filter(Boolean))];

/**
 * The text, tags (with suggestions) and rating of a post, as the upload and edit forms both ask
 * for them: ids start with `prefix`; `post` fills them in.
 */
export function postFields(
  prefix: string,
  rows: number,
  post?: Pick<Post, 'text' | 'tags' | 'rating' | 'source' | 'parentId'>,
) {
  const text = h('textarea', { id: `${prefix}text`, name: 'text', rows, maxlength: 10000 });
  if (post) text.value = post.text;
  const tags = h('input', {
    id: `${prefix}tags`,
    name: 'tags',
    autocomplete: 'off',
    value: post?.tags.map((t) => t.name).join(' '),
  });
  const list = h('ul', { id: `${prefix}tags-list`, class: 'in-flow' });
  attachTagSuggestions(tags, list, { signs: false });
  const rating = ratingSelect(`${prefix}rating`, post?.rating ?? 'none');
  // docs/decisions.md §19: where the picture came from, and its parent post (UUID or number).
  const source = h('input', { id: `${prefix}source`, name: 'source', maxlength: 2048, value: post?.source ?? '' });
  const parent = h('input', {
    id: `${prefix}parent`,
    name: 'parentId',
    autocomplete: 'off',
    value: post?.parentId ?? '',
  });
  const nodes: Child[] = [
    ...field(text, 'Text'),
    ...field(tags, 'Tags ', h('small', {}, '(separated by spaces)')),
    list,
    ...field(rating, 'Rating'),
    ...field(source, 'Source ', h('small', {}, '(where the picture came from)')),
    ...field(parent, 'Parent post ', h('small', {}, '(its id or number; empty for none)')),
  ];
  return {
    nodes,
    values: () => ({
      text: text.value,
      tags: splitTags(tags.value),
      rating: rating.value as Rating,
      source: source.value.trim(),
      parentId: parent.value.trim() || null,
    }),
  };
}

export function editForm(post: Post, changed: (post: Post) => void): HTMLElement {
  const msg = messageBox();
  const fields = postFields('edit-', 4, post);
  const form = h(
    'form',
    { class: 'stack', 'aria-labelledby': 'edit-h' },
    h('h2', { id: 'edit-h' }, 'Edit'),
    fields.nodes,
    h('button', { type: 'submit' }, 'Save changes'),
    msg.el,
  );
  onSubmit(form, msg, 'Saving…', async () => {
    const updated = await ok(api.PUT('/api/post/{id}', { params: { path: { id: post.id } }, body: fields.values() }));
    changed(updated);
    // The page was drawn anew with the saved post: say so in the new form.
    const again = document.querySelector('#edit-h')?.parentElement;
    again?.querySelector('.message')?.replaceChildren(h('p', { class: 'info', role: 'status' }, 'Saved.'));
    again?.querySelector<HTMLButtonElement>('button[type=submit]')?.focus();
  });
  return form;
}

export function deleteControl(post: Post): HTMLElement {
  const msg = messageBox();
  const box = h(
    'section',
    { class: 'danger-zone', 'aria-labelledby': 'delete-h' },
    h('h2', { id: 'delete-h' }, 'Delete'),
  );
  const ask = h('button', { type: 'button', class: 'danger' }, 'Delete this post…');
  const confirmRow = h(
    'p',
    { hidden: true },
    'This removes the post and its image for good. ',
    h('button', { type: 'button', class: 'danger', id: 'confirm-delete' }, 'Yes, delete it'),
    ' ',
    h('button', { type: 'button', id: 'cancel-delete', class: 'secondary' }, 'Cancel'),
  );
  ask.addEventListener('click', () => {
    confirmRow.hidden = false;
    (confirmRow.querySelector('#cancel-delete') as HTMLButtonElement).focus();
  });
  confirmRow.querySelector('#cancel-delete')!.addEventListener('click', () => {
    confirmRow.hidden = true;
    ask.focus();
  });
  confirmRow.querySelector('#confirm-delete')!.addEventListener('click', async () => {
    msg.info('Deleting…');
    try {
      await ok(api.DELETE('/api/post/{id}', { params: { path: { id: post.id } } }));
      location.assign('/');
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  box.append(ask, confirmRow, msg.el);
  return box;
}
