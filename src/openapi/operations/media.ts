/** Stored images and their thumbnails, served from the media store or redirected to its bucket. */
import { IMAGE_MIMES } from '../../media-store/formats.ts';
import { always, error, retryAfter, type Operation } from '../operation-kit.ts';
import { z } from '../zod.ts';

export const MEDIA_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/media/{image}',
    operationId: 'getMedia',
    tag: 'media',
    summary:
      'An image (<id>.<ext>) or thumbnail (<id>.<size>.webp); ETag, long cache lifetime, Range; or a redirect to the bucket (MEDIA_REDIRECT=presigned)',
    request: {
      params: z.object({ image: z.string().openapi({ example: '0190c3f0-0000-7000-8000-000000000000.320.webp' }) }),
    },
    responses: {
      ...always,
      200: { description: 'the file', contentTypes: IMAGE_MIMES },
      206: { description: 'the requested range', contentTypes: IMAGE_MIMES },
      // MEDIA_REDIRECT=presigned (S3 store): the bytes come from the bucket; the redirect may be kept
      // only for the private max-age it states (below the URL's life).
      302: {
        description:
          'with MEDIA_REDIRECT=presigned: the file is at Location, a presigned URL of the bucket that expires (MEDIA_REDIRECT_EXPIRES_S); Range and validators then apply there',
        headers: {
          Location: { description: 'a short-lived presigned GET of the object', schema: { type: 'string' } },
          'Cache-Control': {
            description: "private, max-age=<seconds, below the URL's remaining life>",
            schema: { type: 'string' },
          },
        },
      },
      304: { description: 'not modified (If-None-Match)' },
      404: error('no such file'),
      416: error('range not satisfiable'),
      503: {
        ...error('the media store (MEDIA_STORE, e.g. S3) failed or did not answer in time; try again shortly'),
        headers: retryAfter,
      },
    },
  },
];
