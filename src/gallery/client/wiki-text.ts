/**
 * Wiki text as docs/decisions.md §23 renders it, and nothing more: `[[tag name]]` a link to that tag's
 * wiki page (coloured by the tag's category, marked `missing` where no page exists), `{{a search}}` a link
 * to that search in the gallery's spelling, and the rest as a comment is (src/gallery/client/comment-text.ts:
 * `post #N`, http(s) links, line breaks). Everything is built as text nodes and elements with attributes set
 * one by one: no markup from the body is ever parsed, and a link's target is always built here from the
 * written name (`/wiki/<name>`, `/search?q=<text>`), so no `javascript:` can become one.
 */
import { api } from './api.ts';
import { commentText } from './comment-text.ts';
import { h, type Child } from './dom.ts';
import { categoryClass, type TagCategory } from './tag-colors.ts';

const FORMS = /\[\[([^\][\n]{1,255})\]\]|\{\{([^{}\n]{1,1000})\}\}/gu;
/** at most this many tags are looked up for colour and presence; the rest stay plain links */
const LOOKUPS = 50;

const wikiHref = (name: string) => `/wiki/${encodeURIComponent(name)}`;

/** Danbooru's category numbers, back to names (the lookups read the Danbooru API, docs/decisions.md §20). */
const BOORU_CATEGORIES: Record<number, TagCategory> = {
  0: 'general',
  1: 'artist',
  3: 'copyright',
  4: 'character',
  5: 'meta',
};

/**
 * A tag's page through the Danbooru API, which answers an empty list where there is none (the gallery's
 * pages ask for pages that may not exist: a 404 would be noise in every browser console).
 */
async function pageOf(tag: string): Promise<{ title: string; body: string } | undefined> {
  const res = await api.GET('/wiki_pages.json', { params: { query: { 'search[title]': tag } } }).catch(() => undefined);
  return res?.data?.[0];
}

export function wikiText(body: string): Child[] {
  const out: Child[] = [];
  let at = 0;
  for (const m of body.matchAll(FORMS)) {
    out.push(...commentText(body.slice(at, m.index)));
    if (m[1] !== undefined) {
      const name = m[1].trim().replace(/ /g, '_');
      out.push(h('a', { href: wikiHref(name), class: 'wiki-link', 'data-tag': name }, m[1]));
    } else {
      const q = m[2].trim();
      out.push(h('a', { href: `/search?q=${encodeURIComponent(q)}`, class: 'wiki-search' }, m[2]));
    }
    at = m.index + m[0].length;
  }
  out.push(...commentText(body.slice(at)));
  return out.filter((c) => c !== '');
}

/**
 * Colours the `[[tag]]` links inside `root` by their tag's category and marks those whose page is
 * missing (class `missing`, and the title says so in words). Runs after the text is shown.
 */
export async function markWikiLinks(root: HTMLElement): Promise<void> {
  const links = [...root.querySelectorAll<HTMLAnchorElement>('a.wiki-link')];
  const names = [...new Set(links.map((a) => a.dataset.tag ?? ''))].slice(0, LOOKUPS);
  const facts = new Map<string, { category?: TagCategory; page: boolean }>();
  await Promise.all(
    names.map(async (name) => {
      const [tags, page] = await Promise.all([
        api.GET('/tags.json', { params: { query: { 'search[name_matches]': name } } }).catch(() => undefined),
        pageOf(name),
      ]);
      const tag = tags?.data?.find((t) => t.name === name);
      facts.set(name, { category: tag && BOORU_CATEGORIES[tag.category], page: !!page });
    }),
  );
  for (const a of links) {
    const fact = facts.get(a.dataset.tag ?? '');
    if (!fact) continue;
    if (fact.category) {
      a.classList.add(categoryClass(fact.category));
      a.dataset.category = fact.category;
    }
    if (!fact.page) {
      a.classList.add('missing');
      a.title = `${a.dataset.tag ?? ''}: no wiki page yet`;
    }
  }
}

/** The first paragraph of a page (up to the first blank line), for the excerpt above a search. */
export const firstParagraph = (body: string): string =>
  body
    .split(/\n\s*\n/u)[0]
    .trim()
    .slice(0, 2000);

/**
 * The excerpt above a single-tag search and on the tag page: the page's first paragraph and a link to the
 * whole; filled in once read, empty where the tag has no page.
 */
export function wikiExcerpt(tag: string): HTMLElement {
  const box = h('aside', { class: 'wiki-excerpt-box', 'aria-label': 'From the wiki' });
  void pageOf(tag)
    .then((data) => {
      if (!data) return;
      const text = h('div', { class: 'wiki-excerpt' }, wikiText(firstParagraph(data.body)));
      box.append(text, h('a', { href: wikiHref(data.title), class: 'wiki-more' }, `The wiki page of ${data.title}`));
      void markWikiLinks(text);
    })
    .catch(() => {})
    .finally(() => {
      box.dataset.ready = '1';
    });
  return box;
}

/** The tag a search box's text names when it names exactly one (`cat` or `+cat`), else undefined. */
export function singleTag(q: string): string | undefined {
  return /^\+?([^\s:"~\-+*][^\s:"*]*)$/u.exec(q.trim())?.[1];
}
