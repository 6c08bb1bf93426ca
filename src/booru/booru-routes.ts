import { invalid, notFound } from '../errors.ts';
import { always, searchDown, type Feature, type Reply } from '../http/endpoint.ts';
import { booruErrors } from '../http/errors.ts';
import { z } from '../util/zod.ts';
import { atomFeed } from './atom.ts';
import {
  booruLimit,
  booruOnly,
  booruPage,
  booruTags,
  feedSpelling,
  MAX_BOORU_LIMIT,
  MAX_PAGE,
  searchParam,
} from './params.ts';
import {
  BooruComment,
  BooruError,
  BooruNote,
  BooruPool,
  BooruPost,
  BooruPostFields,
  BooruTag,
  BooruWikiPage,
} from './schemas.ts';
import type { BooruService } from './service.ts';

const str = z.string();
const int = z.number().int();

const TAG_ORDERS = ['count', 'name', 'date'] as const;
/** Danbooru's `/tags.json` allows 1,000 a page. */
const MAX_TAG_LIMIT = 1000;
const FEED_SIZE = 20;

/**
 * The Danbooru read API (docs/decisions.md §20): a compatibility layer for the clients of the
 * Danbooru family (gallery-dl, Grabber, the `booru` package, feed readers). Public; errors are
 * Danbooru's `{ success: false, message }`.
 */

const booruError = (description: string): Reply => ({ description, schema: BooruError });
const only = str.optional().openapi({
  description:
    'comma-separated field names: each post as those alone; notes, children, parent and uploader nested ' +
    "as Danbooru does (gallery-dl's metadata option)",
});

const tags = str.optional().openapi({
  description:
    'Danbooru spelling: tag, -tag, ~tag (one OR group), tag* (prefix), metatags rating: id: width: height: ' +
    'date: favcount: user: fav: md5: text: pool: parent: source: order:; a backslash takes the next character literally',
});
const limit = (max: number, dflt: number) =>
  str.optional().openapi({ description: `1 to ${max}, default ${dflt}; above ${max} is read as ${max}` });
const page = str.optional().openapi({
  description: `1 to ${MAX_PAGE} (0 is 1), bN (the posts numbered below N) or aN (above N), both newest first`,
});
const bad = booruError('a malformed term (unknown metatag, bad range), limit or page; the message names it');

export const booruFeature: Feature<{ booru: BooruService; config: { mediaUrl: string; publicUrl: string } }> = {
  name: 'booru',
  endpoints: [
    {
      method: 'get',
      path: '/posts.json',
      operationId: 'booruPosts',
      tag: 'booru',
      summary: "Danbooru's post search",
      request: { query: z.object({ tags, limit: limit(MAX_BOORU_LIMIT, 20), page, only }) },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'the page', schema: z.union([z.array(BooruPost), z.array(BooruPostFields)]) },
        400: bad,
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        async (ctx) => {
          const tags = booruTags(ctx.query.tags);
          const only = booruOnly(ctx.query.only);
          ctx.body = await booru.posts(tags, booruLimit(ctx.query.limit), booruPage(ctx.query.page), only);
        },
      ],
    },
    {
      method: 'get',
      path: '/posts/{file}',
      operationId: 'booruPost',
      tag: 'booru',
      summary: 'One post by number: /posts/{N}.json',
      request: {
        params: z.object({ file: str.regex(/^\d+\.json$/).openapi({ description: 'N.json' }) }),
        query: z.object({ only }),
      },
      responses: {
        ...always,
        200: { description: 'the post', schema: z.union([BooruPost, BooruPostFields]) },
        404: booruError('no post has that number'),
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const m = /^(\d{1,15})\.json$/.exec(ctx.params.file);
          if (!m) throw notFound('no post has that number');
          ctx.body = booru.post(Number(m[1]), booruOnly(ctx.query.only));
        },
      ],
    },
    {
      method: 'get',
      path: '/counts/posts.json',
      operationId: 'booruCount',
      tag: 'booru',
      summary: 'The exact number of posts a query matches',
      request: { query: z.object({ tags }) },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'the count', schema: z.object({ counts: z.object({ posts: int }).strict() }).strict() },
        400: bad,
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        async (ctx) => {
          ctx.body = { counts: { posts: await booru.count(booruTags(ctx.query.tags)) } };
        },
      ],
    },
    {
      method: 'get',
      path: '/tags.json',
      operationId: 'booruTags',
      tag: 'booru',
      summary: 'Tags some post carries',
      request: {
        query: z.object({
          'search[name_matches]': str.optional().openapi({ description: 'case-insensitive; * matches any run' }),
          'search[order]': z.enum(['count', 'name', 'date']).optional(),
          limit: limit(1000, 20),
          page: str.optional().openapi({ description: `1 to ${MAX_PAGE}` }),
        }),
      },
      responses: { ...always, 200: { description: 'the tags', schema: z.array(BooruTag) }, 400: bad },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const order = searchParam(ctx.query, 'order') ?? 'count';
          if (!(TAG_ORDERS as readonly string[]).includes(order))
            throw invalid(['search[order]'], `search[order] is one of ${TAG_ORDERS.join(', ')}`);
          const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
          const page = booruPage(ctx.query.page);
          if (page.kind !== 'page') throw invalid(['page'], 'tags are paged by number');
          ctx.body = booru.tags(
            searchParam(ctx.query, 'name_matches'),
            order as (typeof TAG_ORDERS)[number],
            (page.n - 1) * limit,
            limit,
          );
        },
      ],
    },
    {
      method: 'get',
      path: '/posts.atom',
      operationId: 'booruFeed',
      tag: 'booru',
      summary: 'An Atom feed of the 20 newest posts a query matches',
      request: {
        query: z.object({
          tags,
          spelling: z
            .enum(['danbooru', 'gallery'])
            .optional()
            .openapi({
              description:
                "how tags is spelled: danbooru (the default) or gallery, the gallery's search box (words, " +
                '"a phrase", +tag, -tag, ~tag, rating:, by:; its sort: is ignored, the feed is newest first)',
            }),
        }),
      },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'an Atom feed (RFC 4287)', contentTypes: ['application/atom+xml'] },
        400: bad,
      },
      before: [booruErrors()],
      handle: ({ booru, config }) => [
        async (ctx) => {
          const tags = booruTags(ctx.query.tags);
          const gallery = feedSpelling(ctx.query.spelling) === 'gallery';
          const posts = await booru.records(tags, FEED_SIZE, gallery);
          ctx.type = 'application/atom+xml; charset=utf-8';
          ctx.body = atomFeed({
            origin: config.publicUrl.replace(/\/$/, ''),
            tags,
            gallery,
            mediaUrl: config.mediaUrl,
            posts,
          });
        },
      ],
    },
    {
      method: 'get',
      path: '/pools.json',
      operationId: 'booruPools',
      tag: 'booru',
      summary: 'Pools, by name',
      request: {
        query: z.object({
          'search[name_matches]': str
            .optional()
            .openapi({ description: 'case-insensitive; * matches any run, _ a space or an underscore' }),
          limit: limit(1000, 20),
          page: str.optional().openapi({ description: `1 to ${MAX_PAGE}` }),
        }),
      },
      responses: { ...always, 200: { description: 'the pools', schema: z.array(BooruPool) }, 400: bad },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
          const page = booruPage(ctx.query.page);
          if (page.kind !== 'page') throw invalid(['page'], 'pools are paged by number');
          ctx.body = booru.pools(searchParam(ctx.query, 'name_matches'), (page.n - 1) * limit, limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/pools/{file}',
      operationId: 'booruPool',
      tag: 'booru',
      summary: 'One pool: /pools/{N}.json',
      request: { params: z.object({ file: str.regex(/^\d+\.json$/).openapi({ description: 'N.json' }) }) },
      responses: {
        ...always,
        200: { description: 'the pool', schema: BooruPool },
        404: booruError('no pool has that number'),
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const m = /^([1-9]\d{0,15})\.json$/.exec(ctx.params.file);
          if (!m) throw notFound('no pool has that number');
          ctx.body = booru.pool(Number(m[1]));
        },
      ],
    },
    // docs/decisions.md §22: comments, which `imgpost import --from` brings
    {
      method: 'get',
      path: '/comments.json',
      operationId: 'booruComments',
      tag: 'booru',
      summary: "Posts' comments, oldest first, post by post",
      request: {
        query: z.object({
          'search[post_id]': str.openapi({ description: 'post numbers separated by commas (at most 200)' }),
          group_by: str.optional().openapi({ description: "Danbooru's `comment` (the only grouping here)" }),
          limit: limit(1000, 100),
        }),
      },
      responses: {
        ...always,
        200: { description: 'their comments (none for an unknown post)', schema: z.array(BooruComment) },
        400: bad,
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const posts = searchParam(ctx.query, 'post_id');
          if (posts === undefined || !/^\d{1,15}(,\d{1,15}){0,199}$/.test(posts))
            throw invalid(['search[post_id]'], 'search[post_id] names posts by number, separated by commas');
          const raw = typeof ctx.query.limit === 'string' ? Number(ctx.query.limit) : 100;
          const n = Number.isInteger(raw) && raw > 0 ? Math.min(raw, 1000) : 100;
          ctx.body = booru.comments(posts.split(',').map(Number), n);
        },
      ],
    },
    // docs/decisions.md §23: notes and wiki pages
    {
      method: 'get',
      path: '/notes.json',
      operationId: 'booruNotes',
      tag: 'booru',
      summary: "A post's notes, oldest first",
      request: { query: z.object({ 'search[post_id]': str.openapi({ description: 'the post number' }) }) },
      responses: {
        ...always,
        200: { description: 'its notes (none for an unknown post)', schema: z.array(BooruNote) },
        400: bad,
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const post = searchParam(ctx.query, 'post_id');
          if (post === undefined || !/^\d{1,15}$/.test(post))
            throw invalid(['search[post_id]'], 'search[post_id] names a post by number');
          ctx.body = booru.notes(Number(post));
        },
      ],
    },
    {
      method: 'get',
      path: '/wiki_pages.json',
      operationId: 'booruWikiPages',
      tag: 'booru',
      summary: 'Wiki pages: the one of a title (an alias finds its target’s), or the most recently changed',
      request: {
        query: z.object({
          'search[title]': str.optional().openapi({ description: 'a tag name (_ or space)' }),
          limit: limit(1000, 20),
          page: str.optional().openapi({ description: `1 to ${MAX_PAGE}` }),
        }),
      },
      responses: { ...always, 200: { description: 'the pages', schema: z.array(BooruWikiPage) }, 400: bad },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
          const page = booruPage(ctx.query.page);
          if (page.kind !== 'page') throw invalid(['page'], 'wiki pages are paged by number');
          ctx.body = booru.wikiPages(searchParam(ctx.query, 'title'), (page.n - 1) * limit, limit);
        },
      ],
    },
    {
      method: 'get',
      path: '/wiki_pages/{file}',
      operationId: 'booruWikiPage',
      tag: 'booru',
      summary: 'One wiki page: /wiki_pages/{title}.json',
      request: { params: z.object({ file: str.openapi({ description: 'the title, then .json' }) }) },
      responses: {
        ...always,
        200: { description: 'the page', schema: BooruWikiPage },
        404: booruError('no wiki page has that title'),
      },
      before: [booruErrors()],
      handle: ({ booru }) => [
        (ctx) => {
          const m = /^(.+)\.json$/s.exec(ctx.params.file);
          if (!m) throw notFound('no wiki page has that title');
          ctx.body = booru.wikiPage(m[1]);
        },
      ],
    },
  ],
};
