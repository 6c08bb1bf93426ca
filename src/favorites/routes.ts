import Router from '@koa/router';
import { z } from 'zod';
import { requireAuth, currentUser } from '../accounts/permissions.ts';
import type { Config } from '../config.ts';
import { jsonBody, optionalBody } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { messageErrors } from '../http/errors.ts';
import { parse } from '../http/validate.ts';
import { toPostView } from '../kernel/views.ts';
import { parseListPaging } from '../search/paging-params.ts';
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
export function favoriteRoutes(deps: {
  favorites: FavoriteService;
  quickSearch: QuickSearch;
  config: Pick<Config, 'mediaUrl'>;
}): Router<AppState> {
  const router = new Router<AppState>();
  const { favorites } = deps;

  router.put('/api/post/:id/favorite', requireAuth, jsonBody(), async (ctx) => {
    const { shortcut } = parse(favoriteBody, optionalBody(ctx));
    await favorites.favorite(currentUser(ctx).id, ctx.params.id, shortcut);
    ctx.status = 204;
  });

  router.delete('/api/post/:id/favorite', requireAuth, async (ctx) => {
    await favorites.unfavorite(currentUser(ctx).id, ctx.params.id);
    ctx.status = 204;
  });

  router.get('/api/account/favorites', requireAuth, (ctx) => {
    const { offset, limit } = parseListPaging(ctx.query);
    const { count, posts } = favorites.list(currentUser(ctx).id, offset, limit);
    ctx.body = { count, data: posts.map((p) => toPostView(p, deps.config.mediaUrl)) };
  });

  // In the /image/search shape, errors included (`{ error }`).
  router.post('/image/quick-search', messageErrors(), requireAuth, jsonBody(), async (ctx) => {
    const { q } = parse(quickSearchBody, optionalBody(ctx));
    ctx.body = { error: null, data: await deps.quickSearch.search(currentUser(ctx).id, q) };
  });

  return router;
}
