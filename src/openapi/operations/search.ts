/** Post search and near-duplicates by perceptual hash (docs/decisions.md §5, §6, §7). */
import { listQuery as SearchPaging } from '../../search/paging-params.ts';
import { body as PostSearchBody, selector as PostSearchSelector } from '../../search/post-search/schemas.ts';
import { postQuery as PostSimilarQuery, query as SimilarQuery } from '../../search/similar/schemas.ts';
import {
  always,
  binary,
  documentedQuery,
  issues,
  json,
  limited,
  paging,
  postId,
  postNotFound,
  searchDown,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

export const SEARCH_OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/api/post/search',
    operationId: 'searchPosts',
    tag: 'search',
    summary: 'Search posts with filters (all must hold) and ordering',
    request: {
      query: paging(SearchPaging),
      // The route checks selectors one by one (for relative issue paths); the document shows them in place.
      body: {
        required: false,
        ...json(PostSearchBody.extend({ filter: z.array(PostSearchSelector).min(1).max(50).optional() })),
      },
    },
    responses: {
      ...always,
      ...searchDown,
      200: { description: 'matching posts; count is exact', schema: S.PostPage },
      400: issues(),
    },
  },
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
      200: { description: 'the hash and the matches', schema: S.SimilarResult },
      400: issues('not an accepted image, or bad query'),
    },
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
        robust:
          "1: also `robust` (docs/decisions.md §16); empty while the post's robust descriptor is not computed yet",
      }),
    },
    responses: {
      ...always,
      ...searchDown,
      200: { description: "the post's hash and the matches", schema: S.SimilarResult },
      400: issues('bad query'),
      404: postNotFound,
    },
  },
];
