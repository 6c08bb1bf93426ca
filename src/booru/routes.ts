import Router from '@koa/router';
import type { AppState } from '../http/context.ts';
import { booruErrors } from '../http/errors.ts';
import { notFound } from '../errors.ts';
import { atomFeed } from './atom.ts';
import { booruLimit, booruOnly, booruPage, booruTags, feedSpelling, searchParam } from './params.ts';
import type { BooruService } from './service.ts';
import { invalid } from '../errors.ts';

const TAG_ORDERS = ['count', 'name', 'date'] as const;
/** Danbooru's `/tags.json` allows 1,000 a page. */
const MAX_TAG_LIMIT = 1000;
const FEED_SIZE = 20;

/** The Danbooru read API (docs/decisions.md §20). Public; errors are `{ success: false, message }`. */
export function booruRoutes(deps: {
  booru: BooruService;
  config: { mediaUrl: string; publicUrl: string };
}): Router<AppState> {
  const router = new Router<AppState>();
  router.use(
    [
      '/posts.json',
      '/posts/:file',
      '/counts/posts.json',
      '/tags.json',
      '/posts.atom',
      '/pools.json',
      '/pools/:file',
      '/notes.json',
      '/wiki_pages.json',
      '/wiki_pages/:file',
    ],
    booruErrors(),
  );

  router.get('/posts.json', async (ctx) => {
    const tags = booruTags(ctx.query.tags);
    const only = booruOnly(ctx.query.only);
    ctx.body = await deps.booru.posts(tags, booruLimit(ctx.query.limit), booruPage(ctx.query.page), only);
  });

  router.get('/posts/:file', (ctx) => {
    const m = /^(\d{1,15})\.json$/.exec(ctx.params.file);
    if (!m) throw notFound('no post has that number');
    ctx.body = deps.booru.post(Number(m[1]), booruOnly(ctx.query.only));
  });

  router.get('/counts/posts.json', async (ctx) => {
    ctx.body = { counts: { posts: await deps.booru.count(booruTags(ctx.query.tags)) } };
  });

  router.get('/tags.json', (ctx) => {
    const order = searchParam(ctx.query, 'order') ?? 'count';
    if (!(TAG_ORDERS as readonly string[]).includes(order))
      throw invalid(['search[order]'], `search[order] is one of ${TAG_ORDERS.join(', ')}`);
    const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
    const page = booruPage(ctx.query.page);
    if (page.kind !== 'page') throw invalid(['page'], 'tags are paged by number');
    ctx.body = deps.booru.tags(
      searchParam(ctx.query, 'name_matches'),
      order as (typeof TAG_ORDERS)[number],
      (page.n - 1) * limit,
      limit,
    );
  });

  router.get('/pools.json', (ctx) => {
    const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
    const page = booruPage(ctx.query.page);
    if (page.kind !== 'page') throw invalid(['page'], 'pools are paged by number');
    ctx.body = deps.booru.pools(searchParam(ctx.query, 'name_matches'), (page.n - 1) * limit, limit);
  });

  router.get('/pools/:file', (ctx) => {
    const m = /^([1-9]\d{0,15})\.json$/.exec(ctx.params.file);
    if (!m) throw notFound('no pool has that number');
    ctx.body = deps.booru.pool(Number(m[1]));
  });

  // docs/decisions.md §23: notes and wiki pages
  router.get('/notes.json', (ctx) => {
    const post = searchParam(ctx.query, 'post_id');
    if (post === undefined || !/^\d{1,15}$/.test(post))
      throw invalid(['search[post_id]'], 'search[post_id] names a post by number');
    ctx.body = deps.booru.notes(Number(post));
  });

  router.get('/wiki_pages.json', (ctx) => {
    const limit = booruLimit(ctx.query.limit, 20, MAX_TAG_LIMIT);
    const page = booruPage(ctx.query.page);
    if (page.kind !== 'page') throw invalid(['page'], 'wiki pages are paged by number');
    ctx.body = deps.booru.wikiPages(searchParam(ctx.query, 'title'), (page.n - 1) * limit, limit);
  });

  router.get('/wiki_pages/:file', (ctx) => {
    const m = /^(.+)\.json$/s.exec(ctx.params.file);
    if (!m) throw notFound('no wiki page has that title');
    ctx.body = deps.booru.wikiPage(m[1]);
  });

  router.get('/posts.atom', async (ctx) => {
    const tags = booruTags(ctx.query.tags);
    const gallery = feedSpelling(ctx.query.spelling) === 'gallery';
    const posts = await deps.booru.records(tags, FEED_SIZE, gallery);
    ctx.type = 'application/atom+xml; charset=utf-8';
    ctx.body = atomFeed({
      origin: deps.config.publicUrl.replace(/\/$/, ''),
      tags,
      gallery,
      mediaUrl: deps.config.mediaUrl,
      posts,
    });
  });
  return router;
}
