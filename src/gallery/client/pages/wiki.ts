/**
 * `/wiki/<tag>`: a tag's wiki page (docs/decisions.md §23): its text as wiki text, its other names, its
 * history (each version's text beside the one before it) with revert, and for holders of 0x4 an edit
 * form that sends the version it was read at, so a concurrent edit is refused and named instead of
 * overwritten; holders of 0x1000 lock and unlock it. A locked page's form shows to 0x1000 only.
 */
import { api, ApiError, can, errorText, ok, PERMISSION, type Schemas } from '../api.ts';
import { field, formatDate, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { currentUser } from '../session.ts';
import { markWikiLinks, wikiText } from '../wiki-text.ts';

type WikiPage = Schemas['WikiPage'];
type WikiVersion = Schemas['WikiVersion'];

function body(text: string): HTMLElement {
  const el = h('div', { class: 'wiki-body' }, wikiText(text));
  void markWikiLinks(el);
  return el;
}

function editForm(tag: string, page: WikiPage | undefined, msg: ReturnType<typeof messageBox>, after: () => void) {
  const text = h('textarea', { id: 'wiki-body', name: 'body', rows: 12, maxlength: 50000 }) as HTMLTextAreaElement;
  text.value = page?.body ?? '';
  const names = h('input', { id: 'wiki-other-names', name: 'otherNames', type: 'text' }) as HTMLInputElement;
  names.value = page?.otherNames.join(', ') ?? '';
  const form = h(
    'form',
    { class: 'wiki-edit', 'aria-label': 'Edit the wiki page' },
    ...field(text, 'Text ([[tag]], {{search}}, post #N and web links)'),
    ...field(names, 'Other names (comma-separated)'),
    h('button', { type: 'submit' }, page ? 'Save' : 'Create the page'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const otherNames = names.value
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean);
    try {
      await ok(
        api.PUT('/api/wiki/{tag}', {
          params: { path: { tag } },
          body: { body: text.value, otherNames, ...(page ? { version: page.version } : {}) },
        }),
      );
      after();
    } catch (err) {
      msg.error(
        err instanceof ApiError && err.status === 409
          ? `Someone else saved this page meanwhile (${errorText(err)}). Reload to see it; your text is still here.`
          : errorText(err),
      );
    }
  });
  return form;
}

function historyList(
  tag: string,
  versions: WikiVersion[],
  mayRevert: boolean,
  msg: ReturnType<typeof messageBox>,
  after: () => void,
) {
  return h(
    'ol',
    { class: 'wiki-history', 'aria-label': 'History' },
    versions.map((v, i) => {
      const before = versions[i + 1];
      return h(
        'li',
        { 'data-version': v.version },
        h('strong', {}, `Version ${v.version}`),
        ` · ${formatDate(v.createdAt)} · ${v.editor?.name ?? 'nobody'} `,
        mayRevert && i > 0
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                onclick: () =>
                  void ok(
                    api.POST('/api/wiki/{tag}/revert', { params: { path: { tag } }, body: { version: v.version } }),
                  )
                    .then(after)
                    .catch((err: unknown) => msg.error(errorText(err))),
              },
              `Revert to version ${v.version}`,
            )
          : null,
        h(
          'details',
          {},
          h('summary', {}, 'Text, and the version before'),
          h(
            'div',
            { class: 'wiki-diff' },
            h('pre', { class: 'preview-body' }, v.body),
            before ? h('pre', { class: 'preview-body old' }, before.body) : null,
          ),
        ),
      );
    }),
  );
}

export async function wikiPage(tag: string): Promise<void> {
  const self = await currentUser().catch(() => undefined);
  const msg = messageBox();
  const draw = () => void wikiPage(tag);
  const res = await api.GET('/api/wiki/{tag}', { params: { path: { tag } } });
  const page = res.data;
  if (!page && res.response.status !== 404) throw new ApiError(res.response.status, errorText(res.error));
  const mayEdit = can(self, PERMISSION.edit) && (!page?.locked || can(self, PERMISSION.tags));
  const versions = page ? await ok(api.GET('/api/wiki/{tag}/history', { params: { path: { tag } } })) : [];
  const lock =
    page && can(self, PERMISSION.tags)
      ? h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () =>
              void ok(api.PUT('/api/wiki/{tag}/lock', { params: { path: { tag } }, body: { locked: !page.locked } }))
                .then(draw)
                .catch((err: unknown) => msg.error(errorText(err))),
          },
          page.locked ? 'Unlock' : 'Lock',
        )
      : null;
  replace(
    main(),
    pageHeading(page?.tag ?? tag),
    h(
      'p',
      {},
      h('a', { href: `/tag/${encodeURIComponent(page?.tag ?? tag)}` }, 'The tag'),
      ' · ',
      h('a', { href: `/search?q=${encodeURIComponent(page?.tag ?? tag)}` }, 'Its posts'),
    ),
    msg.el,
    page
      ? [
          page.locked ? h('p', { class: 'muted' }, 'Locked: only tag governors (0x1000) edit it.') : null,
          page.otherNames.length
            ? h('p', { class: 'wiki-other-names' }, 'Other names: ', page.otherNames.join(', '))
            : null,
          body(page.body),
          h(
            'p',
            { class: 'muted' },
            `Version ${page.version}, ${formatDate(page.updatedAt)}, by ${page.editor?.name ?? 'nobody'}`,
          ),
          lock,
        ]
      : h('p', { class: 'muted', id: 'wiki-missing' }, 'This tag has no wiki page yet.'),
    mayEdit ? h('section', {}, h('h2', {}, page ? 'Edit' : 'Write it'), editForm(tag, page, msg, draw)) : null,
    versions.length ? h('section', {}, h('h2', {}, 'History'), historyList(tag, versions, mayEdit, msg, draw)) : null,
  );
}
