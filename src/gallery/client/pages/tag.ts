/**
 * `/tag/<name>`: a tag's post count, aliases and implications (docs/decisions.md §15), and its newest posts.
 * Holders of 0x1000 get the governance controls: add or remove an alias of this tag, add or remove
 * a tag this one implies. Every change answers in the page's message box, then the page redraws.
 */
import { api, ApiError, can, errorText, ok, PERMISSION, type Self } from '../api.ts';
import { field, h, main, messageBox, pageHeading, replace } from '../dom.ts';
import { describePost, grid } from '../grid.ts';
import { currentUser } from '../session.ts';
import { wikiExcerpt } from '../wiki-text.ts';
import { CATEGORIES, categoryClass, categoryLegend, type TagCategory } from '../tag-colors.ts';

/** docs/decisions.md §19: the tag's category, set by holders of 0x1000. */
function categoryForm(name: string, current: TagCategory, msg: ReturnType<typeof messageBox>, after: () => void) {
  const select = h(
    'select',
    { id: 'tag-category', name: 'category' },
    CATEGORIES.map((c) => h('option', { value: c, selected: c === current }, c)),
  );
  const form = h(
    'form',
    { class: 'inline-form' },
    ...field(select, 'Category'),
    h('button', { type: 'submit' }, 'Set category'),
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await ok(
        api.PUT('/api/tag/{name}/category', {
          params: { path: { name } },
          body: { category: select.value as TagCategory },
        }),
      );
      after();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return form;
}

const NEWEST = 12;
const tagLink = (name: string) => h('a', { href: `/tag/${encodeURIComponent(name)}` }, name);

/** A list of tag names, each with a remove button when `remove` is given. */
function tagList(
  label: string,
  names: string[],
  remove?: (name: string) => Promise<unknown>,
  after?: () => void,
): HTMLElement {
  if (!names.length) return h('p', { class: 'muted' }, 'none');
  return h(
    'ul',
    { class: 'tags governed', 'aria-label': label },
    names.map((n) =>
      h(
        'li',
        {},
        tagLink(n),
        remove
          ? h(
              'button',
              {
                type: 'button',
                class: 'secondary small',
                'aria-label': `Remove ${n} from ${label.toLowerCase()}`,
                onclick: () => void remove(n).then(after, () => {}),
              },
              '×',
            )
          : null,
      ),
    ),
  );
}

/** One small form: a tag name and a button; `run` gets the trimmed name. */
function addForm(
  id: string,
  label: string,
  button: string,
  run: (value: string) => Promise<unknown>,
  msg: ReturnType<typeof messageBox>,
  after: () => void,
): HTMLElement {
  const input = h('input', { id, name: id, autocomplete: 'off', required: true, maxlength: 64 });
  const form = h('form', { class: 'inline-form' }, ...field(input, label), h('button', { type: 'submit' }, button));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    msg.info('Saving…');
    try {
      await run(input.value.trim());
      after();
    } catch (err) {
      msg.error(errorText(err));
    }
  });
  return form;
}

export async function tagPage(name: string, note?: string): Promise<void> {
  let tag;
  try {
    tag = await ok(api.GET('/api/tag/{name}', { params: { path: { name } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) {
      replace(
        main(),
        pageHeading(`Tag ${name}`),
        h(
          'p',
          {},
          'No post carries this tag. ',
          h('a', { href: `/search?q=${encodeURIComponent(`+${name}`)}` }, 'Search for it.'),
        ),
      );
      return;
    }
    throw err;
  }
  const self: Self | undefined = await currentUser().catch(() => undefined);
  const governs = can(self, PERMISSION.tags);
  const newest = await ok(
    api.POST('/image/search', {
      params: { query: { offset: 0, limit: NEWEST } },
      body: { conditions: [{ type: 'tagInclude', value: name }], orderBy: 'uploadDate', order: 'desc' },
    }),
  );
  const msg = messageBox();
  const redraw = (said: string) => () => void tagPage(name, said).catch((err) => msg.error(errorText(err)));
  // A failed removal says why in the message box and leaves the page as it is.
  const removing = (call: () => Promise<unknown>) =>
    call().catch((err: unknown) => {
      msg.error(errorText(err));
      throw err;
    });
  const removeAlias = (alias: string) =>
    removing(() => ok(api.DELETE('/api/tag/{name}/alias', { params: { path: { name: alias } } })));
  const removeImplied = (other: string) =>
    removing(() => ok(api.DELETE('/api/tag/{name}/implies/{other}', { params: { path: { name, other } } })));

  document.title = `Tag ${tag.name} · imgpost`;
  const items = newest.data.images.map((img) => ({
    href: `/post/${img.id}`,
    thumbnail: img.thumbnailUrl,
    alt: describePost({ text: img.text, tags: img.tags }, `Post ${img.id}`),
  }));
  replace(
    main(),
    h('h1', { class: categoryClass(tag.category) }, `Tag ${tag.name}`),
    h('p', { class: 'tag-category' }, `Category: ${tag.category}`),
    categoryLegend(),
    wikiExcerpt(tag.name),
    h(
      'p',
      { class: 'count' },
      `${tag.count} ${tag.count === 1 ? 'post' : 'posts'} · `,
      h('a', { href: `/search?q=${encodeURIComponent(`+${tag.name}`)}` }, 'search all'),
    ),
    h(
      'dl',
      { class: 'details tag-details' },
      h('dt', {}, 'Aliases'),
      h('dd', {}, tagList('Aliases', tag.aliases, governs ? removeAlias : undefined, redraw('Alias removed.'))),
      h('dt', {}, 'Implies'),
      h('dd', {}, tagList('Implies', tag.implies, governs ? removeImplied : undefined, redraw('Implication removed.'))),
      h('dt', {}, 'Implied by'),
      h('dd', {}, tagList('Implied by', tag.impliedBy)),
    ),
    governs
      ? h(
          'section',
          { class: 'governance', 'aria-labelledby': 'govern-h' },
          h('h2', { id: 'govern-h' }, 'Govern this tag'),
          categoryForm(name, tag.category, msg, redraw('Category set.')),
          addForm(
            'alias-name',
            'New alias of this tag',
            'Add alias',
            (alias) =>
              ok(api.PUT('/api/tag/{name}/alias', { params: { path: { name: alias } }, body: { target: name } })),
            msg,
            redraw('Alias added.'),
          ),
          addForm(
            'implied-name',
            'This tag implies',
            'Add implication',
            (other) => ok(api.PUT('/api/tag/{name}/implies/{other}', { params: { path: { name, other } } })),
            msg,
            redraw('Implication added; existing posts follow in the background.'),
          ),
        )
      : null,
    msg.el,
    h('h2', {}, 'Newest posts'),
    items.length ? grid(items, `Newest posts tagged ${tag.name}`) : h('p', { class: 'empty' }, 'No posts.'),
  );
  if (note) msg.info(note);
}
