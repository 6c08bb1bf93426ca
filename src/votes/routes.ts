import Router from '@koa/router';
import { z } from 'zod';
import { currentUser, requireAuth } from '../accounts/permissions.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import type { VoteService } from './service.ts';

/** `PUT /api/post/[id]/vote`: `{ value: 1 | -1 }` (docs/decisions.md §18). */
export const VoteBody = z
  .object({
    value: z.union([z.literal(1), z.literal(-1)], { errorMap: () => ({ message: 'value must be 1 or -1' }) }),
  })
  .strict();

/** Votes (docs/decisions.md §18): any authenticated account, one vote per post. */
export function voteRoutes(deps: { votes: VoteService }): Router<AppState> {
  const router = new Router<AppState>();
  const { votes } = deps;

  router.put('/api/post/:id/vote', requireAuth, jsonBody(), async (ctx) => {
    const { value } = parse(VoteBody, requestBody(ctx));
    ctx.body = await votes.vote(currentUser(ctx).id, ctx.params.id, value);
  });

  router.delete('/api/post/:id/vote', requireAuth, async (ctx) => {
    await votes.unvote(currentUser(ctx).id, ctx.params.id);
    ctx.status = 204;
  });

  router.get('/api/post/:id/vote', requireAuth, (ctx) => {
    ctx.body = votes.valueOf(currentUser(ctx).id, ctx.params.id);
  });

  return router;
}
