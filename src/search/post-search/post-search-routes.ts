import { jsonBody, requestBody } from '../../http/body.ts';
import { always, issues, json, searchDown, type Feature } from '../../http/endpoint.ts';
import { PostPage } from '../../kernel/shapes.ts';
import { z } from '../../util/zod.ts';
import { documentedListQuery, parseListPaging } from '../paging-params.ts';
import { body as PostSearchBody, selector as PostSearchSelector, parseSearchBody } from './schemas.ts';
import type { PostSearchService } from './service.ts';

/** POST /api/post/search (docs/decisions.md §6). Public. */
export const postSearchFeature: Feature<{ postSearch: PostSearchService }> = {
  name: 'post-search',
  endpoints: [
    {
      method: 'post',
      path: '/api/post/search',
      operationId: 'searchPosts',
      tag: 'search',
      summary: 'Search posts with filters (all must hold) and ordering',
      request: {
        query: documentedListQuery(),
        // The route checks selectors one by one (for relative issue paths); the document shows them in place.
        body: {
          required: false,
          ...json(PostSearchBody.extend({ filter: z.array(PostSearchSelector).min(1).max(50).optional() })),
        },
      },
      responses: {
        ...always,
        ...searchDown,
        200: { description: 'matching posts; count is exact unless countIsEstimate', schema: PostPage },
        400: issues(),
      },
      handle: ({ postSearch }) => [
        jsonBody(),
        async (ctx) => {
          const paging = parseListPaging(ctx.query);
          const request = parseSearchBody(requestBody(ctx));
          ctx.body = await postSearch.search(request, paging);
        },
      ],
    },
  ],
};
