import { always, documentedQuery, issues, postId, postNotFound, type Feature } from '../../http/endpoint.ts';
import { parse } from '../../http/validate.ts';
import { PostPage } from '../../kernel/shapes.ts';
import { toPostView } from '../../kernel/views.ts';
import type { PostChildren } from './children.ts';
import { ChildrenQuery } from './schemas.ts';

/** GET /api/post/[id]/children (public, docs/decisions.md §19): a page of the post's children. */
export const childrenFeature: Feature<{ children: PostChildren; config: { mediaUrl: string } }> = {
  name: 'children',
  endpoints: [
    {
      method: 'get',
      path: '/api/post/{id}/children',
      operationId: 'postChildren',
      tag: 'posts',
      summary: "A post's children (posts whose parentId is it), by post number",
      request: {
        params: postId,
        query: documentedQuery(ChildrenQuery, { offset: 'children to skip', limit: 'page size (at most 100)' }),
      },
      responses: {
        ...always,
        200: { description: 'a page of children; count is all of them', schema: PostPage },
        400: issues(),
        404: postNotFound,
      },
      handle: ({ children, config }) => [
        (ctx) => {
          const q = parse(ChildrenQuery, ctx.query);
          const { count, posts } = children.list(ctx.params.id, q.offset, q.limit);
          ctx.body = { count, data: posts.map((p) => toPostView(p, config.mediaUrl)) };
        },
      ],
    },
  ],
};
