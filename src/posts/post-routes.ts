import { documentedListQuery } from '../search/paging-params.ts';
import { Self } from '../accounts/account-shapes.ts';
import { PERMISSION, currentUser, requirePermission } from '../accounts/permissions.ts';
import type { AccountService } from '../accounts/service.ts';
import type { Config } from '../config.ts';
import { AppError, invalid } from '../errors.ts';
import { bodyCapFor, jsonBody, optionalBody } from '../http/body.ts';
import {
  always,
  binary,
  error,
  forbidden,
  issues,
  json,
  limited,
  postId,
  postNotFound,
  retryAfter,
  searchDown,
  type Endpoint,
  type Feature,
} from '../http/endpoint.ts';
import { multipart, partsOf } from '../http/multipart.ts';
import { parse } from '../http/validate.ts';
import { DuplicateMatches, Post, PostPage, postFields } from '../kernel/shapes.ts';
import { toPostView } from '../kernel/views.ts';
import { IMAGE_MIMES, VIDEO_MIMES } from '../media-store/formats.ts';
import { z } from '../util/zod.ts';
import { Force, ListQuery, MAX_TAGS, MAX_TEXT, PostMetadata, TAG_NAME_PATTERN } from './schemas.ts';
import type { PostService } from './service.ts';

interface PostDeps {
  postService: PostService;
  accounts: Pick<AccountService, 'selfFor'>;
  images: { tmpDir: string };
  config: Pick<Config, 'mediaUrl' | 'maxImageBytes' | 'video'>;
}

function parseMetadataPart(raw: string | undefined): PostMetadata {
  if (raw === undefined || raw.trim() === '') return parse(PostMetadata, {});
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw invalid(['metadata'], 'metadata is not valid JSON', 'invalid_json', 'JSON', 'string');
  }
  // Issue paths are relative to the metadata object (['rating']), as the original reported them.
  return parse(PostMetadata, json);
}

const ForcePart = z.object({ force: Force });

/** A Post whose uploader is the caller, as Self: the answer to a create. */
export const CreatedPost = z
  .object({ ...postFields, uploader: Self })
  .strict()
  .openapi('CreatedPost', { description: 'A Post whose uploader is the caller, as Self' });

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

/** Posts (docs/decisions.md §4): upload, read, edit, delete. */
export const postsFeature: Feature<PostDeps> = {
  name: 'posts',
  endpoints: [
    {
      method: 'get',
      path: '/api/post/',
      operationId: 'listPosts',
      tag: 'posts',
      summary: 'List posts, newest first',
      request: {
        query: documentedListQuery(),
      },
      responses: {
        ...always,
        200: { description: 'a page of posts', schema: PostPage },
        400: issues('offset or limit negative or not an integer'),
      },
      handle: ({ postService, config }) => [
        (ctx) => {
          const q = parse(ListQuery, ctx.query);
          const { count, posts } = postService.list(q.offset, q.limit);
          ctx.body = { count, data: posts.map((p) => toPostView(p, config.mediaUrl)) };
        },
      ],
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
                  'JPEG, PNG, GIF, WebP or AVIF, smaller than 4 MiB and at most 100 megapixels; or an animation (GIF, APNG, animated WebP, smaller than 4 MiB) or a video (WebM with VP8, VP9 or AV1; MP4 with H.264 or AV1; below MAX_VIDEO_BYTES, at most MAX_VIDEO_SECONDS long), read from its bytes (docs/decisions.md §21); required unless `key` is sent',
                ).optional(),
                key: z.string().uuid().optional().openapi({
                  description:
                    "instead of `image`: the key of the caller's direct upload (POST /api/post/upload-url), read from the bucket and checked as an image part would be",
                }),
                metadata: Metadata.optional().openapi({ description: 'absent fields: text "", tags [], rating none' }),
                force: Force.openapi({ description: '1 or true: store even when near-duplicates exist' }),
              }),
              encoding: {
                image: { contentType: [...IMAGE_MIMES, ...VIDEO_MIMES, 'application/octet-stream'].join(', ') },
                metadata: { contentType: 'application/json' },
              },
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
        201: { description: 'created', schema: CreatedPost },
        400: issues(
          "not an accepted image, animation or video (`unsupported_media`, or `media_too_complex` when reading it ran over its time or memory), bad metadata or force; a `key` that is not the caller's, has expired, holds nothing or is being made into a post by another request; both or neither of `image` and `key`",
        ),
        403: forbidden,
        409: {
          description: 'near-duplicates exist (fewer than 4 differing bits) and force is not set',
          schema: DuplicateMatches,
        },
      },
      handle: (deps) => [
        requirePermission(PERMISSION.createPost),
        multipart(
          deps.images.tmpDir,
          ['image'],
          bodyCapFor(Math.max(deps.config.maxImageBytes, deps.config.video.maxVideoBytes)),
        ),
        async (ctx) => {
          const { files, fields } = partsOf(ctx);
          // The image itself, or `key`: the key of a direct upload the caller put in the bucket.
          const file = files.image;
          // A part declared an image keeps the still images' body cap (§4's 413); videos have their own.
          const imageCap = bodyCapFor(deps.config.maxImageBytes);
          if (file && file.size > imageCap && file.mimetype?.toLowerCase().startsWith('image/'))
            throw new AppError('too_large', `request body larger than ${imageCap} bytes`);
          const key = fields.key;
          if (file && key !== undefined) throw invalid(['key'], 'send either an image part or a key, not both');
          if (!file && key === undefined)
            throw invalid(['image'], 'image is required', 'invalid_type', 'file', 'undefined');
          const metadata = parseMetadataPart(fields.metadata);
          const { force } = parse(ForcePart, { force: fields.force });
          const user = currentUser(ctx);
          const post = file
            ? await deps.postService.create({ file, metadata, force, uploader: user })
            : await deps.postService.createFromUpload({ key: key!, metadata, force, uploader: user });
          ctx.status = 201;
          ctx.body = { ...toPostView(post, deps.config.mediaUrl), uploader: deps.accounts.selfFor(user) };
        },
      ],
    },
    {
      method: 'get',
      path: '/api/post/{id}',
      operationId: 'getPost',
      tag: 'posts',
      summary: 'One post, by UUID or number',
      request: { params: postId },
      responses: { ...always, 200: { description: 'the post', schema: Post }, 404: postNotFound },
      handle: ({ postService, config }) => [
        (ctx) => {
          ctx.body = toPostView(postService.find(ctx.params.id), config.mediaUrl);
        },
      ],
    },
    ...(['put', 'patch'] as const).map(
      (method): Endpoint<PostDeps> => ({
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
          200: { description: 'the post after the change', schema: Post },
          400: issues(),
          403: forbidden,
          404: postNotFound,
        },
        handle: ({ postService, config }) => [
          requirePermission(PERMISSION.editPost),
          jsonBody(),
          async (ctx) => {
            const patch = parse(PostMetadata, optionalBody(ctx));
            ctx.body = toPostView(await postService.update(ctx.params.id, patch, currentUser(ctx)), config.mediaUrl);
          },
        ],
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
      handle: ({ postService }) => [
        requirePermission(PERMISSION.deletePost),
        async (ctx) => {
          await postService.delete(ctx.params.id, currentUser(ctx));
          ctx.status = 204;
        },
      ],
    },
  ],
};
