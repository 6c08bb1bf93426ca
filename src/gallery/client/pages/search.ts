/**
 * `/search?q=`: the box's text sent as it is to POST /image/search, which parses it (the condition
 * `query` in the gallery's spelling, docs/decisions.md §20) and orders by its `sort:`; facet counts of
 * the whole result beside the grid (docs/decisions.md §11); every facet is a link that narrows the search.
 */
import { api, ApiError, ok, postIdOf, type Schemas } from '../api.ts';
import { h, main, pageHeading, replace } from '../dom.ts';
import { singleTag, wikiExcerpt } from '../wiki-text.ts';
import { currentPage, describePost, pager, totalText } from '../grid.ts';
import { hidingGrid } from '../hiding-grid.ts';
import { withSegment } from '../query.ts';
import { applyRatings, visibleRatings } from '../preferences.ts';
import { currentUser } from '../session.ts';
import { categoryLegend } from '../tag-colors.ts';
import { postTagReader } from '../tag-peek.ts';
import { makePoolButton } from './pools.ts';

const PAGE_SIZE = 24;

type Facets = Schemas['ImageSearchFacets'];

const searchHref = (q: string, page = 1) => `/search?q=${encodeURIComponent(q)}${page > 1 ? `&page=${page}` : ''}`;

function facetList(title: string, entries: { label: string; count: number; href: string }[]): HTMLElement | null {
  if (entries.length === 0) return null;
  return h(
    'section',
    { class: 'facet', 'aria-label': title },
    h('h2', {}, title),
    h(
      'ul',
      {},
      entries.map((e) =>
        h('li', {}, h('a', { href: e.href }, e.label), ' ', h('span', { class: 'n' }, String(e.count))),
      ),
    ),
  );
}

/**
 * docs/decisions.md §24: a search of more than SEARCH_TOTAL_BOUND posts counts no facets over all of them (that
 * would visit every match); its sidebar lists the tags of the posts shown, as Danbooru's does.
 */
function pageFacets(images: { tags: string[] }[]): Facets {
  const counts = new Map<string, number>();
  for (const img of images) for (const t of img.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  const tags = [...counts]
    .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, 20)
    .map(([name, count]) => ({ name, count }));
  return { tags };
}

function facetsAside(q: string, facets: Facets | undefined, tagsTitle = 'Tags'): HTMLElement {
  if (!facets) return h('aside', { class: 'facets', 'aria-label': 'Refine' });
  const ratings = facets.rating ? (Object.entries(facets.rating) as [string, number][]).filter(([, n]) => n > 0) : [];
  return h(
    'aside',
    { class: 'facets', 'aria-label': 'Refine' },
    facetList(
      tagsTitle,
      (facets.tags ?? []).map((t) => ({
        label: t.name,
        count: t.count,
        href: searchHref(withSegment(q, `+${t.name}`)),
      })),
    ),
    facetList(
      'Rating',
      ratings.map(([r, n]) => ({ label: r, count: n, href: searchHref(withSegment(q, `rating:${r}`)) })),
    ),
    facetList(
      'Uploader',
      (facets.uploader ?? []).map((u) => ({
        label: u.name,
        count: u.count,
        href: searchHref(withSegment(q, `by:${u.name}`)),
      })),
    ),
  );
}

/** The search's Atom feed (docs/decisions.md §20), also announced in the head for feed readers. */
function feedLink(q: string): HTMLElement {
  const href = `/posts.atom?tags=${encodeURIComponent(q)}&spelling=gallery`;
  document.head.querySelector('link[rel="alternate"][type="application/atom+xml"]')?.remove();
  document.head.append(h('link', { rel: 'alternate', type: 'application/atom+xml', title: 'This search', href }));
  return h('a', { class: 'feed', href, type: 'application/atom+xml' }, 'Atom feed of this search');
}

/** The two spellings: the box's, and Danbooru's for API clients and feeds. */
const syntaxHelp = (): HTMLElement =>
  h(
    'details',
    { class: 'syntax-help' },
    h('summary', {}, 'Search syntax'),
    h(
      'p',
      {},
      'This box: words (full text), "a phrase", +tag, -tag, ~tag (any of), rating:none|moderate|violent, ',
      'by:name, sort:new|old|relevance.',
    ),
    h(
      'p',
      {},
      'Danbooru spelling (/posts.json, /posts.atom, the /image/search condition "query"): tag -tag ~tag tag* ',
      'rating:g,q,e id:>100 width:800..1920 height:<=600 favcount:>=2 date:2024-05-01 user:NAME fav:NAME ',
      'md5:HEX text:"a phrase" pool:ID parent:N|none source:TEXT order:id|id_desc|favcount|change|random. ',
      'A backslash makes the next character literal: \\-dash, re\\:zero.',
    ),
  );

/** A 400's message for the person: the term the server did not understand, without the request's path to it. */
const notUnderstood = (err: ApiError): string => {
  const said = (err.body as { error?: unknown } | undefined)?.error;
  return typeof said === 'string' ? said.replace(/^conditions\.\d+\.value: /, '') : err.message;
};

export async function searchPage(): Promise<void> {
  const q = new URLSearchParams(location.search).get('q') ?? '';
  const page = currentPage();
  const body = {
    // The box's order (its sort:, or relevance for words) applies as no orderBy is named.
    conditions: q.trim() ? [{ type: 'query' as const, value: q, spelling: 'gallery' as const }] : [],
  };
  const paging = { params: { query: { offset: (page - 1) * PAGE_SIZE, limit: PAGE_SIZE } } };
  let result;
  try {
    // docs/decisions.md §24: the page first, which stops early on a broad search; the facets, which visit every
    // match, only for a search that counted to its end.
    result = await ok(api.POST('/image/search', { ...paging, body }));
    if (!result.data.totalIsEstimate && result.data.total > 0)
      result = await ok(
        api.POST('/image/search', {
          ...paging,
          body: { ...body, facets: ['tags' as const, 'rating' as const, 'uploader' as const] },
        }),
      );
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    replace(
      main(),
      pageHeading(`Search: ${q}`),
      h('p', { class: 'error', role: 'alert' }, `Not understood: ${notUnderstood(err)}.`),
      syntaxHelp(),
    );
    return;
  }
  const { total, totalIsEstimate, images, facets } = result.data;
  const { shown, hidden } = applyRatings(images, await visibleRatings());
  // docs/decisions.md §18: blacklisted posts are left out too, with a switch to show them.
  const tagsOf = postTagReader();
  const shownGrid = await hidingGrid(shown, {
    tagsOf: (img) => img.tags,
    toItem: (img) => ({
      href: `/post/${postIdOf(img.imageUrl) ?? img.id}`,
      thumbnail: img.thumbnailUrl,
      alt: describePost({ text: img.text, tags: img.tags }, `Post ${img.id}`),
      // A result names its tags only: the names at once, their categories (and order) once read.
      tags: img.tags.map((name) => ({ name })),
      categorised: img.tags.length ? tagsOf(postIdOf(img.imageUrl) ?? String(img.id)) : undefined,
      media: img.media,
    }),
    label: 'Search results',
    empty: h(
      'p',
      { class: 'empty' },
      'Nothing matches. Try fewer segments, or check the spelling of tags (tags match exactly).',
    ),
  });
  const self = await currentUser().catch(() => undefined);
  // docs/decisions.md §19: this page's posts, in the order shown, can become a pool.
  const poolPosts = shown.map((img) => postIdOf(img.imageUrl) ?? String(img.id));
  replace(
    main(),
    pageHeading(q ? `Search: ${q}` : 'Search'),
    singleTag(q) ? wikiExcerpt(singleTag(q)!) : null,
    h(
      'p',
      { class: 'count', role: 'status' },
      `${totalText(total, totalIsEstimate)} ${total === 1 && !totalIsEstimate ? 'post matches' : 'posts match'}`,
      hidden ? ` · ${hidden} on this page hidden by your safe-browsing preferences` : '',
    ),
    makePoolButton(self, poolPosts),
    h(
      'div',
      { class: 'results' },
      shownGrid,
      totalIsEstimate ? facetsAside(q, pageFacets(images), 'Tags on this page') : facetsAside(q, facets),
    ),
    shown.length ? categoryLegend() : null,
    pager(page, total, PAGE_SIZE, (n) => searchHref(q, n), totalIsEstimate),
    h('p', { class: 'feeds' }, feedLink(q)),
    syntaxHelp(),
  );
}
