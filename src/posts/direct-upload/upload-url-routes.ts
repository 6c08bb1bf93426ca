import { PERMISSION, currentUser, requirePermission } from '../../accounts/permissions.ts';
import { jsonBody, optionalBody } from '../../http/body.ts';
import { always, error, forbidden, issues, json, limited, retryAfter, type Feature } from '../../http/endpoint.ts';
import { parse } from '../../http/validate.ts';
import { z } from '../../util/zod.ts';
import { UploadUrlRequest } from '../schemas.ts';
import type { DirectUploads } from './direct-uploads.ts';

const UploadUrl = z
  .object({
    key: z
      .string()
      .uuid()
      .openapi({ description: 'name it as the `key` part of POST /api/post/ (in place of `image`)' }),
    method: z.literal('PUT'),
    url: z.string().url().openapi({ description: "presigned: PUT the image's bytes here, straight to the bucket" }),
    headers: z.record(z.string()).openapi({
      description:
        'send these with the PUT exactly as given (they are signed): `content-type`, and `content-length` when `size` was given',
    }),
    expiresAt: z.string().openapi({
      description:
        'ISO time after which neither the PUT nor a create naming the key is accepted; an object never claimed is then deleted',
    }),
  })
  .strict()
  .openapi('UploadUrl');

const Request = UploadUrlRequest.extend({
  contentType: UploadUrlRequest.shape.contentType.openapi({
    description: 'image/*, video/* or application/octet-stream (default); the PUT must send it',
  }),
  size: UploadUrlRequest.shape.size.openapi({
    description: 'bytes; when given the PUT must be exactly this long, and an image too large is refused here (400)',
  }),
  expiresIn: UploadUrlRequest.shape.expiresIn.openapi({
    description: 'seconds; at most DIRECT_UPLOAD_EXPIRES_S (default 900), a longer life is lowered to it',
  }),
});

/** Direct uploads to the S3 store (issue 26): the presigned PUT a create then names by its key. */
export const directUploadFeature: Feature<{ directUploads: DirectUploads }> = {
  name: 'direct-upload',
  endpoints: [
    {
      method: 'post',
      path: '/api/post/upload-url',
      operationId: 'createUploadUrl',
      tag: 'posts',
      auth: true,
      summary:
        "A presigned PUT to the S3 store for a new post's image (needs the create-post permission); then create the post naming its key",
      request: { body: { required: false, ...json(Request) } },
      responses: {
        ...always,
        ...limited,
        200: { description: 'the URL, its headers and the key', schema: UploadUrl },
        400: issues('contentType not an image or video type, size not an integer or too large, or an unknown field'),
        403: forbidden,
        409: error(
          'the server keeps images locally (MEDIA_STORE=local): upload with POST /api/post/ as multipart/form-data',
        ),
        503: { ...error("the media store's credentials could not be had; try again shortly"), headers: retryAfter },
      },
      handle: ({ directUploads }) => [
        requirePermission(PERMISSION.createPost),
        jsonBody(),
        async (ctx) => {
          const request = parse(UploadUrlRequest, optionalBody(ctx));
          ctx.body = await directUploads.grant(currentUser(ctx), request);
        },
      ],
    },
  ],
};
