import { PERMISSION, currentUser, requirePermission } from '../../accounts/permissions.ts';
import { jsonBody, requestBody } from '../../http/body.ts';
import {
  always,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  postId,
  postNotFound,
  type Feature,
} from '../../http/endpoint.ts';
import { parse } from '../../http/validate.ts';
import { Post, PostVersionPage } from '../../kernel/shapes.ts';
import { toPostView } from '../../kernel/views.ts';
import type { PostHistory } from './history.ts';
import { MAX_VERSIONS_LIMIT, RevertBody, VersionsQuery } from './schemas.ts';

/** GET /api/post/[id]/versions (public) and POST /api/post/[id]/revert (edit bit), docs/decisions.md §9. */
export const versionsFeature: Feature<{ history: PostHistory; config: { mediaUrl: string } }> = {
  name: 'versions',
  endpoints: [
    {
      method: 'get',
      path: '/api/post/{id}/versions',
      operationId: 'listPostVersions',
      tag: 'posts',
      summary: "A post's versions, newest first",
      request: {
        params: postId,
        query: documentedQuery(VersionsQuery, {
          offset: 'versions to skip',
          limit: `page size; above ${MAX_VERSIONS_LIMIT} lowered to ${MAX_VERSIONS_LIMIT}`,
        }),
      },
      responses: {
        ...always,
        200: { description: 'a page of versions', schema: PostVersionPage },
        400: issues('offset or limit negative or not an integer'),
        404: postNotFound,
      },
      handle: ({ history }) => [
        (ctx) => {
          const q = parse(VersionsQuery, ctx.query);
          ctx.body = history.list(ctx.params.id, q.offset, q.limit);
        },
      ],
    },
    {
      method: 'post',
      path: '/api/post/{id}/revert',
      operationId: 'revertPost',
      tag: 'posts',
      auth: true,
      summary:
        'Set text, rating and tags to those of an earlier version, as an update (needs the edit-post permission)',
      request: { params: postId, body: { required: true, ...json(RevertBody) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the post after the revert', schema: Post },
        400: issues(),
        403: forbidden,
        404: error('no post with this id, or it has no such version'),
      },
      handle: ({ history, config }) => [
        requirePermission(PERMISSION.editPost),
        jsonBody(),
        async (ctx) => {
          const { version } = parse(RevertBody, requestBody(ctx));
          ctx.body = toPostView(await history.revert(ctx.params.id, version, currentUser(ctx)), config.mediaUrl);
        },
      ],
    },
  ],
};
