import { invalid } from '../../errors.ts';
import {
  always,
  binary,
  documentedQuery,
  issues,
  limited,
  postId,
  postNotFound,
  searchDown,
  type Feature,
} from '../../http/endpoint.ts';
import { multipart, partsOf } from '../../http/multipart.ts';
import { parse } from '../../http/validate.ts';
import { z } from '../../util/zod.ts';
import { postQuery as PostSimilarQuery, query as SimilarQuery, SimilarResult } from './schemas.ts';
import type { SimilarService } from './service.ts';

/**
 * POST /api/post/similar (docs/decisions.md §5, §16) and GET /api/post/{id}/similar (docs/decisions.md §16). Public, as
 * reading a post is.
 */
export const similarFeature: Feature<{ similar: SimilarService; images: { tmpDir: string } }> = {
  name: 'similar',
  endpoints: [
    {
      method: 'post',
      path: '/api/post/similar',
      operationId: 'similarPosts',
      tag: 'search',
      summary: 'Posts whose image is similar to the uploaded one',
      request: {
        query: documentedQuery(SimilarQuery, {
          maxDiff: 'most differing bits',
          limit: 'most matches returned',
          transforms:
            'dihedral: also find mirrored and rotated (90/180/270) copies, each match then names its `transform`; absent: the plain lookup',
          robust:
            '1: also `robust`, the posts the robust method (docs/decisions.md §16) judges the same picture (crops, borders, captions) that are not in `similar`',
        }),
        body: {
          required: true,
          content: { 'multipart/form-data': { schema: z.object({ image: binary('the image to compare') }) } },
        },
      },
      responses: {
        ...always,
        ...limited,
        ...searchDown,
        200: { description: 'the hash and the matches', schema: SimilarResult },
        400: issues('not an accepted image, or bad query'),
      },
      handle: ({ similar, images }) => [
        multipart(images.tmpDir, ['image']),
        async (ctx) => {
          const params = parse(SimilarQuery, ctx.query);
          const file = partsOf(ctx).files.image;
          if (!file) throw invalid(['image'], 'the image part is required', 'invalid_type', 'file', 'undefined');
          ctx.body = await similar.find(file.path, params);
        },
      ],
    },
    {
      method: 'get',
      path: '/api/post/{id}/similar',
      operationId: 'similarToPost',
      tag: 'search',
      summary: "Posts whose image is similar to this post's (the post itself left out)",
      request: {
        params: postId,
        query: documentedQuery(PostSimilarQuery, {
          maxDiff: 'most differing bits',
          limit: 'most matches returned (in each list)',
          transforms:
            "dihedral: also find mirrored and rotated (90/180/270) copies from the post's stored hashes (docs/decisions.md §24), each match then names its `transform`; absent: the plain lookup",
          robust:
            "1: also `robust` (docs/decisions.md §16); empty while the post's robust descriptor is not computed yet",
        }),
      },
      responses: {
        ...always,
        ...searchDown,
        200: { description: "the post's hash and the matches", schema: SimilarResult },
        400: issues('bad query'),
        404: postNotFound,
      },
      handle: ({ similar }) => [
        async (ctx) => {
          const params = parse(PostSimilarQuery, ctx.query);
          ctx.body = await similar.findForPost(ctx.params.id, params);
        },
      ],
    },
  ],
};
