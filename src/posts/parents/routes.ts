import Router from '@koa/router';
import type { AppState } from '../../http/context.ts';
import { parse } from '../../http/validate.ts';
import { toPostView } from '../../kernel/views.ts';
import { ChildrenQuery } from './schemas.ts';
import type { PostChildren } from './children.ts';

/** GET /api/post/[id]/children (public, docs/decisions.md §19): a page of the post's children. */
export function childRoutes(deps: { children: PostChildren; config: { mediaUrl: string } }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/post' });
  router.get('/:id/children', (ctx) => {
    const q = parse(ChildrenQuery, ctx.query);
    const { count, posts } = deps.children.list(ctx.params.id, q.offset, q.limit);
    ctx.body = { count, data: posts.map((p) => toPostView(p, deps.config.mediaUrl)) };
  });
  return router;
}
