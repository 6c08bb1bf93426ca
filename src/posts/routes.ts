import Router from '@koa/router';
import { z } from 'zod';
import { PERMISSION, currentUser, requirePermission } from '../accounts/permissions.ts';
import { invalid } from '../errors.ts';
import { bodyCapFor, jsonBody, optionalBody } from '../http/body.ts';
import type { AppState, AuthUser } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { multipart, partsOf } from '../http/multipart.ts';
import { toPostView } from '../kernel/views.ts';
import { Force, ListQuery, PostMetadata, UploadUrlRequest } from './schemas.ts';
import type { DirectUploads } from './direct-upload/direct-uploads.ts';
import type { PostService } from './service.ts';

export interface PostRoutesDeps {
  postService: PostService;
  directUploads: DirectUploads;
  config: { mediaUrl: string; maxImageBytes: number };
  /** The caller as Self, for the create response. */
  selfOf(user: AuthUser): Record<string, unknown>;
  tmpDir: string;
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

export function postRoutes(deps: PostRoutesDeps): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/post' });
  const view = (p: Parameters<typeof toPostView>[0]) => toPostView(p, deps.config.mediaUrl);

  router.get('/', (ctx) => {
    const q = parse(ListQuery, ctx.query);
    const { count, posts } = deps.postService.list(q.offset, q.limit);
    ctx.body = { count, data: posts.map(view) };
  });

  router.get('/:id', (ctx) => {
    ctx.body = view(deps.postService.find(ctx.params.id));
  });

  // Direct uploads (issue 26): a presigned PUT to the bucket; the create then names its key.
  router.post('/upload-url', requirePermission(PERMISSION.createPost), jsonBody(), async (ctx) => {
    const request = parse(UploadUrlRequest, optionalBody(ctx));
    ctx.body = await deps.directUploads.grant(currentUser(ctx), request);
  });

  const cap = bodyCapFor(deps.config.maxImageBytes);
  router.post('/', requirePermission(PERMISSION.createPost), multipart(deps.tmpDir, ['image'], cap), async (ctx) => {
    const { files, fields } = partsOf(ctx);
    // The image itself, or `key`: the key of a direct upload the caller put in the bucket.
    const file = files.image;
    const key = fields.key;
    if (file && key !== undefined) throw invalid(['key'], 'send either an image part or a key, not both');
    if (!file && key === undefined) throw invalid(['image'], 'image is required', 'invalid_type', 'file', 'undefined');
    const metadata = parseMetadataPart(fields.metadata);
    const { force } = parse(ForcePart, { force: fields.force });
    const user = currentUser(ctx);
    const post = file
      ? await deps.postService.create({ file, metadata, force, uploader: user })
      : await deps.postService.createFromUpload({ key: key!, metadata, force, uploader: user });
    ctx.status = 201;
    ctx.body = { ...view(post), uploader: deps.selfOf(user) };
  });

  const edit = async (ctx: Parameters<Parameters<typeof router.put>[1]>[0]) => {
    const patch = parse(PostMetadata, optionalBody(ctx));
    ctx.body = view(await deps.postService.update(ctx.params.id, patch, currentUser(ctx)));
  };
  router.put('/:id', requirePermission(PERMISSION.editPost), jsonBody(), edit);
  router.patch('/:id', requirePermission(PERMISSION.editPost), jsonBody(), edit);

  router.delete('/:id', requirePermission(PERMISSION.deletePost), async (ctx) => {
    await deps.postService.delete(ctx.params.id, currentUser(ctx));
    ctx.status = 204;
  });
  return router;
}
