import Router from '@koa/router';
import { PERMISSION, currentUser, hasPermission, requireAuth, requirePermission } from '../accounts/permissions.ts';
import { AppError } from '../errors.ts';
import { jsonBody, requestBody } from '../http/body.ts';
import type { AppContext, AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { parseListPaging } from '../search/paging-params.ts';
import { COMMENT_ID, CommentBody, NewestCommentsQuery } from './schemas.ts';
import type { CommentActor, CommentService } from './service.ts';

function commentId(ctx: AppContext): number {
  if (!COMMENT_ID.test(ctx.params.id)) throw new AppError('not_found', 'comment not found');
  return Number(ctx.params.id);
}

function actor(ctx: AppContext): CommentActor {
  const user = currentUser(ctx);
  return {
    id: user.id,
    mayComment: hasPermission(user, PERMISSION.comment),
    moderates: hasPermission(user, PERMISSION.deletePost),
  };
}

/** Comments (docs/decisions.md §18): everyone reads; 0x4000 writes; the author edits; the author or 0x2000 deletes. */
export function commentRoutes(deps: { comments: CommentService }): Router<AppState> {
  const router = new Router<AppState>();
  const { comments } = deps;

  router.get('/api/post/:id/comment', (ctx) => {
    const { offset, limit } = parseListPaging(ctx.query);
    ctx.body = comments.ofPost(ctx.params.id, offset, limit);
  });

  router.post('/api/post/:id/comment', requirePermission(PERMISSION.comment), jsonBody(), async (ctx) => {
    const { body } = parse(CommentBody, requestBody(ctx));
    ctx.body = await comments.add(actor(ctx), ctx.params.id, body);
    ctx.status = 201;
  });

  router.get('/api/comment', (ctx) => {
    const { author, offset, limit } = parse(NewestCommentsQuery, ctx.query);
    ctx.body = comments.newest(author, offset, limit);
  });

  router.patch('/api/comment/:id', requireAuth, jsonBody(), async (ctx) => {
    const id = commentId(ctx);
    const { body } = parse(CommentBody, requestBody(ctx));
    ctx.body = await comments.edit(actor(ctx), id, body);
  });

  router.delete('/api/comment/:id', requireAuth, async (ctx) => {
    await comments.remove(actor(ctx), commentId(ctx));
    ctx.status = 204;
  });

  return router;
}
