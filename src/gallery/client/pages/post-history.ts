/**
 * The version history (GET /api/post/<id>/versions, docs/decisions.md §9), newest first, each with what
 * changed; editors can revert to any earlier version (POST /api/post/<id>/revert).
 */
import { api, errorText, ok, type Post, type Schemas } from '../api.ts';
import { formatDate, h, messageBox, replace } from '../dom.ts';

type Version = Schemas['PostVersion'];

const show = (v: unknown) =>
  Array.isArray(v) ? (v.length ? v.join(' ') : '(none)') : v === '' ? '(empty)' : String(v);

function describeChanges(v: Version): HTMLElement {
  if (v.version === 1 || !v.changes) return h('p', {}, `Created: rating ${v.rating}, tags ${show(v.tags)}`);
  const items = Object.entries(v.changes).map(([field, c]) => {
    if (field === 'tags' && Array.isArray(c.old) && Array.isArray(c.new)) {
      const before = new Set(c.old as string[]);
      const after = new Set(c.new as string[]);
      const added = [...after].filter((t) => !before.has(t));
      const removed = [...before].filter((t) => !after.has(t));
      return h(
        'li',
        {},
        'tags: ',
        added.length ? `added ${added.join(' ')}` : '',
        added.length && removed.length ? '; ' : '',
        removed.length ? `removed ${removed.join(' ')}` : '',
      );
    }
    return h('li', {}, `${field}: ${show(c.old)} → ${show(c.new)}`);
  });
  return h('ul', { class: 'changes' }, items);
}

export function historySection(post: Post, editing: boolean, changed: (post: Post) => void): HTMLElement {
  const msg = messageBox();
  const list = h('ol', { class: 'history', reversed: true });
  const section = h(
    'section',
    { class: 'history-box', 'aria-labelledby': 'history-h' },
    h('h2', { id: 'history-h', tabindex: -1 }, 'History'),
    msg.el,
    list,
  );
  void (async () => {
    try {
      const page = await ok(
        api.GET('/api/post/{id}/versions', { params: { path: { id: post.id }, query: { limit: 100 } } }),
      );
      const newest = page.data[0]?.version;
      replace(
        list,
        page.data.map((v) =>
          h(
            'li',
            { class: 'version' },
            h(
              'p',
              {},
              h('strong', {}, `Version ${v.version}`),
              ` by ${v.editor?.name ?? 'the importer'}, `,
              h('time', { datetime: v.createdAt }, formatDate(v.createdAt)),
            ),
            describeChanges(v),
            editing && v.version !== newest ? revertButton(post, v, msg, changed) : null,
          ),
        ),
      );
      if (page.count > page.data.length)
        section.append(h('p', { class: 'muted' }, `The ${page.data.length} newest of ${page.count} versions.`));
    } catch (err) {
      msg.error(errorText(err));
    }
  })();
  return section;
}

function revertButton(
  post: Post,
  v: Version,
  msg: ReturnType<typeof messageBox>,
  changed: (post: Post) => void,
): HTMLElement {
  const button = h('button', { type: 'button' }, `Revert to version ${v.version}`);
  button.addEventListener('click', async () => {
    msg.info(`Reverting to version ${v.version}…`);
    try {
      changed(
        await ok(
          api.POST('/api/post/{id}/revert', { params: { path: { id: post.id } }, body: { version: v.version } }),
        ),
      );
      document
        .getElementById('history-h')
        ?.parentElement?.querySelector('.message')
        ?.replaceChildren(h('p', { class: 'info', role: 'status' }, `Reverted to version ${v.version}.`));
      document.getElementById('history-h')?.focus();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return button;
}
