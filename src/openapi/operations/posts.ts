/** Posts (docs/decisions.md §4): upload, read, edit, delete, and their history (§9). */
import { IMAGE_MIMES } from '../../media-store/formats.ts';
import { Force, ListQuery, MAX_TAGS, MAX_TEXT, PostMetadata, TAG_NAME_PATTERN } from '../../posts/schemas.ts';
import { MAX_VERSIONS_LIMIT, RevertBody, VersionsQuery } from '../../posts/versions/schemas.ts';
import {
  always,
  binary,
  documentedQuery,
  error,
  forbidden,
  issues,
  json,
  limited,
  paging,
  postId,
  postNotFound,
  retryAfter,
  searchDown,
  type Operation,
} from '../operation-kit.ts';
import * as S from '../schemas.ts';
import { z } from '../../util/zod.ts';

/** A tag name as sent: the rule of src/posts/schemas.ts as one pattern. */
const TagName = z.string().regex(new RegExp(TAG_NAME_PATTERN, 'u')).openapi('TagName', {
  description: 'trimmed, then 1 to 64 characters (code points) without whitespace or control characters; case is kept',
});
/** Post metadata as the routes validate it, with the tag-name rule spelled out. */
const Metadata = PostMetadata.extend({
  text: PostMetadata.shape.text.openapi({
    description: `at most ${MAX_TEXT} UTF-16 code units (maxLength counts code points, so it is the looser bound)`,
  }),
  tags: z
    .array(TagName)
    .max(MAX_TAGS)
    .optional()
    .openapi({ description: `at most ${MAX_TAGS}; duplicates are dropped` }),
});

export const POST_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/post/',
    operationId: 'listPosts',
    tag: 'posts',
    summary: 'List posts, newest first',
    request: { query: paging(ListQuery) },
    responses: {
      ...always,
      200: { description: 'a page of posts', schema: S.PostPage },
      400: issues('offset or limit negative or not an integer'),
    },
  },
  {
    method: 'post',
    path: '/api/post/',
    operationId: 'createPost',
    tag: 'posts',
    auth: true,
    summary: "Upload an image as a new post, or make one of a direct upload's key (needs the create-post permission)",
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              image: binary(
                'JPEG, PNG, GIF, WebP or AVIF, smaller than 4 MiB and at most 100 megapixels; required unless `key` is sent',
              ).optional(),
              key: z.string().uuid().optional().openapi({
                description:
                  "instead of `image`: the key of the caller's direct upload (POST /api/post/upload-url), read from the bucket and checked as an image part would be",
              }),
              metadata: Metadata.optional().openapi({ description: 'absent fields: text "", tags [], rating none' }),
              force: Force.openapi({ description: '1 or true: store even when near-duplicates exist' }),
            }),
            encoding: { image: { contentType: IMAGE_MIMES.join(', ') }, metadata: { contentType: 'application/json' } },
          },
        },
      },
    },
    responses: {
      ...always,
      ...limited,
      ...searchDown,
      503: {
        ...error(
          'the search index or the media store (MEDIA_STORE) is unavailable: nothing was stored; try again shortly',
        ),
        headers: retryAfter,
      },
      201: { description: 'created', schema: S.CreatedPost },
      400: issues(
        "not an accepted image, bad metadata or force; a `key` that is not the caller's, has expired, holds nothing or is being made into a post by another request; both or neither of `image` and `key`",
      ),
      403: forbidden,
      409: {
        description: 'near-duplicates exist (fewer than 4 differing bits) and force is not set',
        schema: S.DuplicateMatches,
      },
    },
  },
  {
    method: 'get',
    path: '/api/post/{id}',
    operationId: 'getPost',
    tag: 'posts',
    summary: 'One post, by UUID or number',
    request: { params: postId },
    responses: { ...always, 200: { description: 'the post', schema: S.Post }, 404: postNotFound },
  },
  ...(['put', 'patch'] as const).map(
    (method): Operation => ({
      method,
      path: '/api/post/{id}',
      operationId: method === 'put' ? 'updatePost' : 'patchPost',
      tag: 'posts',
      auth: true,
      summary: `Change a post's metadata; absent fields stay (needs the edit-post permission)${method === 'patch' ? '; same as PUT' : ''}`,
      request: { params: postId, body: { required: false, ...json(Metadata) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the post after the change', schema: S.Post },
        400: issues(),
        403: forbidden,
        404: postNotFound,
      },
    }),
  ),
  {
    method: 'delete',
    path: '/api/post/{id}',
    operationId: 'deletePost',
    tag: 'posts',
    auth: true,
    summary: 'Delete a post, its files and its index entry (needs the delete-post permission)',
    request: { params: postId },
    responses: { ...always, ...limited, 204: { description: 'deleted' }, 403: forbidden, 404: postNotFound },
  },

  // post history (docs/decisions.md §9)
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
      200: { description: 'a page of versions', schema: S.PostVersionPage },
      400: issues('offset or limit negative or not an integer'),
      404: postNotFound,
    },
  },
  {
    method: 'post',
    path: '/api/post/{id}/revert',
    operationId: 'revertPost',
    tag: 'posts',
    auth: true,
    summary: 'Set text, rating and tags to those of an earlier version, as an update (needs the edit-post permission)',
    request: { params: postId, body: { required: true, ...json(RevertBody) } },
    responses: {
      ...always,
      ...limited,
      200: { description: 'the post after the revert', schema: S.Post },
      400: issues(),
      403: forbidden,
      404: error('no post with this id, or it has no such version'),
    },
  },
];
