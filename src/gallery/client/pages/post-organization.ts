/**
 * A post's place in the archive (docs/decisions.md §19): its source (linked only when it is an http(s)
 * URL, rel="nofollow noopener ugc"; anything else is text), its parent, its children, and the pools it
 * is in with the posts before and after it.
 */
import { api, errorText, ok, type Post } from '../api.ts';
import { h, messageBox } from '../dom.ts';
import { describePost, grid } from '../grid.ts';

/** An http(s) URL, as a link that passes no ranking and no opener; anything else, as text. */
export function sourceValue(source: string): HTMLElement {
  if (!source) return h('span', { class: 'muted' }, 'unknown');
  let url: URL | undefined;
  try {
    url = new URL(source);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === 'http:' || url.protocol === 'https:'))
    return h('a', { href: url.href, rel: 'nofollow noopener ugc', class: 'source' }, source);
  return h('span', { class: 'source' }, source);
}

/**
 * Where an imported post came from (docs/decisions.md §22): the site and the post's number there, linked
 * as a source is, with its uploader's name there; all of it text from elsewhere, so set as text.
 */
export function originValue(origin: NonNullable<Post['origin']>): HTMLElement {
  const label = `${origin.site} #${origin.id}`;
  let url: URL | undefined;
  try {
    url = new URL(origin.url);
  } catch {
    url = undefined;
  }
  const what =
    url && (url.protocol === 'http:' || url.protocol === 'https:')
      ? h('a', { href: url.href, rel: 'nofollow noopener ugc', class: 'origin' }, label)
      : h('span', { class: 'origin' }, label);
  return h('span', {}, what, origin.uploader ? ` uploaded by ${origin.uploader}` : '');
}

export function parentValue(post: Post): HTMLElement {
  return post.parentId
    ? h('a', { href: `/post/${post.parentId}`, rel: 'up' }, `Post ${post.parentId.slice(0, 8)}`)
    : h('span', { class: 'muted' }, 'none');
}

/** The children, as a grid (their first page). */
export function childrenSection(post: Post): HTMLElement {
  const section = h('section', { class: 'children', 'aria-labelledby': 'children-h' });
  const msg = messageBox();
  void (async () => {
    try {
      const page = await ok(
        api.GET('/api/post/{id}/children', { params: { path: { id: post.id }, query: { limit: 100 } } }),
      );
      if (page.count === 0) return;
      const items = page.data.map((c) => ({
        href: `/post/${c.id}`,
        thumbnail: c.thumbnails['320'],
        alt: describePost({ text: c.text, tags: c.tags.map((t) => t.name) }, `Post ${c.id.slice(0, 8)}`),
      }));
      section.append(h('h2', { id: 'children-h' }, `Children (${page.count})`), grid(items, 'Children'));
    } catch (err) {
      section.append(msg.el);
      msg.error(errorText(err));
    }
  })();
  return section;
}

/** Each pool the post is in: its name, the post's place, previous and next. */
export function poolsSection(post: Post): HTMLElement {
  const section = h('section', { class: 'post-pools', 'aria-labelledby': 'pools-h' });
  void (async () => {
    try {
      const { data } = await ok(api.GET('/api/post/{id}/pools', { params: { path: { id: post.id } } }));
      if (data.length === 0) return;
      section.append(
        h('h2', { id: 'pools-h' }, 'In pools'),
        ...data.map((p) =>
          h(
            'nav',
            { class: 'pool-nav', 'aria-label': `Pool ${p.pool.name}` },
            p.previous
              ? h('a', { href: `/post/${p.previous}`, rel: 'prev' }, '← Previous')
              : h('span', { class: 'muted' }, 'First'),
            h(
              'span',
              {},
              h('a', { href: `/pool/${p.pool.id}` }, p.pool.name),
              ` · ${p.position + 1} of ${p.pool.postCount}`,
            ),
            p.next ? h('a', { href: `/post/${p.next}`, rel: 'next' }, 'Next →') : h('span', { class: 'muted' }, 'Last'),
          ),
        ),
      );
    } catch (err) {
      section.append(h('p', { class: 'error', role: 'alert' }, errorText(err)));
    }
  })();
  return section;
}
