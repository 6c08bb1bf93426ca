/**
 * One comment as every page shows it (docs/decisions.md §18): author, time, "edited", the body rendered by
 * ./comment-text.ts; for its author an edit (a textarea in place) and a delete, for moderators a delete.
 */
import { api, can, errorText, ok, PERMISSION, type Schemas, type Self } from './api.ts';
import { commentText } from './comment-text.ts';
import { formatDate, h, messageBox, replace } from './dom.ts';

export type Comment = Schemas['Comment'];

export interface CommentItemOptions {
  self: Self | undefined;
  /** a link to the post (the recent-comments page) */
  showPost?: boolean;
  /** after a delete: the item is gone */
  onDeleted?: (c: Comment) => void;
}

function byline(c: Comment, showPost: boolean): HTMLElement {
  return h(
    'p',
    { class: 'comment-meta' },
    c.author
      ? h('a', { href: `/comments?author=${encodeURIComponent(c.author.name)}`, class: 'author' }, c.author.name)
      : c.originAuthor !== undefined
        ? h('span', { class: 'author' }, `${c.originAuthor} (imported)`)
        : h('span', { class: 'author muted' }, 'a deleted account'),
    ' · ',
    h('time', { datetime: c.createdAt }, formatDate(c.createdAt)),
    c.edited ? h('span', { class: 'muted', title: `edited ${formatDate(c.updatedAt)}` }, ' · edited') : null,
    showPost ? [' · on ', h('a', { href: `/post/${c.postId}` }, `post ${c.postId.slice(0, 8)}`)] : null,
  );
}

export function commentItem(initial: Comment, opts: CommentItemOptions): HTMLLIElement {
  let c = initial;
  const li = h('li', { class: 'comment', id: `comment-${c.id}` });
  const msg = messageBox();
  const mine = !!opts.self && c.author?.id === opts.self.id;
  const mayEdit = mine && can(opts.self, PERMISSION.comment);
  const mayDelete = mine || can(opts.self, PERMISSION.delete);
  const path = () => ({ params: { path: { id: String(c.id) } } });

  const draw = () => {
    const actions = h('p', { class: 'actions comment-actions' });
    if (mayEdit) actions.append(h('button', { type: 'button', class: 'secondary', onclick: edit }, 'Edit'), ' ');
    if (mayDelete) actions.append(h('button', { type: 'button', class: 'danger', onclick: remove }, 'Delete'));
    replace(
      li,
      byline(c, opts.showPost ?? false),
      h('div', { class: 'comment-body' }, commentText(c.body)),
      mayEdit || mayDelete ? actions : null,
      msg.el,
    );
  };

  const edit = () => {
    const area = h('textarea', { id: `edit-comment-${c.id}`, rows: 4 });
    area.value = c.body;
    const form = h(
      'form',
      { class: 'stack' },
      h('label', { for: area.id }, 'Change your comment'),
      area,
      h(
        'p',
        { class: 'actions' },
        h('button', { type: 'submit' }, 'Save comment'),
        h('button', { type: 'button', class: 'secondary', onclick: draw }, 'Cancel'),
      ),
      msg.el,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      try {
        c = await ok(api.PATCH('/api/comment/{id}', { ...path(), body: { body: area.value } }));
        msg.clear();
        draw();
        li.querySelector<HTMLElement>('button')?.focus();
      } catch (err) {
        msg.error(errorText(err));
      }
    });
    replace(li, byline(c, opts.showPost ?? false), form);
    area.focus();
  };

  const remove = async () => {
    try {
      await ok(api.DELETE('/api/comment/{id}', path()));
      li.remove();
      opts.onDeleted?.(c);
    } catch (err) {
      msg.error(errorText(err));
    }
  };

  draw();
  return li;
}
