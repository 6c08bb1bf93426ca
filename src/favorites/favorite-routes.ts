import { z } from 'zod';
import { currentUser } from '../accounts/permissions.ts';
import type { Config } from '../config.ts';
import { jsonBody, optionalBody } from '../http/body.ts';
import { always, error, issues, json, postId, postNotFound, searchDown, type Feature } from '../http/endpoint.ts';
import { messageErrors } from '../http/errors.ts';
import { parse } from '../http/validate.ts';
import { PostPage } from '../kernel/shapes.ts';
import { toPostView } from '../kernel/views.ts';
import { ImageSearchResult } from '../search/image-search/result-shapes.ts';
import { documentedListQuery, parseListPaging } from '../search/paging-params.ts';
import type { QuickSearch } from './quick-search.ts';
import type { FavoriteService } from './service.ts';

/** `PUT /api/post/[id]/favorite`'s optional body: the original's shortcut (1–32 characters, unique per account). */
export const favoriteBody = z.object({
  shortcut: z
    .string()
    .trim()
    .min(1, 'shortcut must not be empty')
    .max(32, 'shortcut is at most 32 characters')
    .optional(),
});
export const quickSearchBody = z.object({
  q: z.string().trim().min(1, 'q must not be empty').max(256, 'q is at most 256 characters'),
});

/** docs/decisions.md §14: favorites and quick search. */
export const favoritesFeature: Feature<{
  favorites: FavoriteService;
  quickSearch: QuickSearch;
  config: Pick<Config, 'mediaUrl'>;
}> = {
  name: 'favorites',
  endpoints: [
    {
      method: 'get',
      path: '/api/account/favorites',
      operationId: 'listFavorites',
      tag: 'accounts',
      auth: true,
      summary: "The caller's favorites, newest favorite first",
      request: {
        query: documentedListQuery(),
      },
      responses: {
        ...always,
        200: { description: 'a page of posts', schema: PostPage },
        400: issues('offset or limit negative or not an integer'),
      },
      handle: ({ favorites, config }) => [
        (ctx) => {
          const { offset, limit } = parseListPaging(ctx.query);
          const { count, posts } = favorites.list(currentUser(ctx).id, offset, limit);
          ctx.body = { count, data: posts.map((p) => toPostView(p, config.mediaUrl)) };
        },
      ],
    },
    {
      method: 'put',
      path: '/api/post/{id}/favorite',
      operationId: 'favoritePost',
      tag: 'posts',
      auth: true,
      summary: 'Favorite a post (idempotent), optionally with a shortcut for quick search',
      request: { params: postId, body: { required: false, ...json(favoriteBody) } },
      responses: {
        ...always,
        204: { description: 'a favorite' },
        400: issues(),
        404: postNotFound,
        409: error('the caller uses this shortcut for another favorite'),
      },
      handle: ({ favorites }) => [
        jsonBody(),
        async (ctx) => {
          const { shortcut } = parse(favoriteBody, optionalBody(ctx));
          await favorites.favorite(currentUser(ctx).id, ctx.params.id, shortcut);
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'delete',
      path: '/api/post/{id}/favorite',
      operationId: 'unfavoritePost',
      tag: 'posts',
      auth: true,
      summary: 'Unfavorite a post (idempotent)',
      request: { params: postId },
      responses: { ...always, 204: { description: 'not a favorite' }, 404: postNotFound },
      handle: ({ favorites }) => [
        async (ctx) => {
          await favorites.unfavorite(currentUser(ctx).id, ctx.params.id);
          ctx.status = 204;
        },
      ],
    },
    {
      method: 'post',
      path: '/image/quick-search',
      operationId: 'quickSearch',
      tag: 'search',
      auth: true,
      summary:
        "The caller's favorites whose shortcut starts with q first, then textMatch results for q; errors are { error }",
      request: { body: { required: true, ...json(quickSearchBody) } },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'a page of images', schema: ImageSearchResult },
        400: error('q missing or empty'),
      },
      // In the /image/search shape, errors included (`{ error }`), the auth gate's too.
      before: [messageErrors()],
      handle: ({ quickSearch }) => [
        jsonBody(),
        async (ctx) => {
          const { q } = parse(quickSearchBody, optionalBody(ctx));
          ctx.body = { error: null, data: await quickSearch.search(currentUser(ctx).id, q) };
        },
      ],
    },
  ],
};
