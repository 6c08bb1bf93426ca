/** The `operations` tag's bodies: health, readiness and the OpenAPI document. */
import { z } from '../util/zod.ts';

export const OpenApiDocument = z
  .object({
    openapi: z.string().regex(/^3\.[01]\.\d+$/),
    info: z.object({ title: z.string(), version: z.string() }).passthrough(),
    paths: z.record(z.record(z.unknown())),
  })
  .passthrough()
  .openapi('OpenApiDocument', { description: 'An OpenAPI 3.1 document (this one), or its 3.0 rendering' });

export const Health = z
  .object({ status: z.literal('ok') })
  .strict()
  .openapi('Health');

export const Readiness = z
  .object({
    status: z.enum(['ready', 'not ready']),
    sqlite: z.enum(['up', 'down']),
    elasticsearch: z.enum(['up', 'down']).openapi({
      description: '`up` when every shard of the posts index has an active copy, so searches can be answered',
    }),
    cluster: z.enum(['green', 'yellow', 'red', 'unreachable']).openapi({
      description:
        'the Elasticsearch cluster as a whole: yellow (a replica missing) and red (some other index lacks a primary) do not make the service unready by themselves',
    }),
    ffmpeg: z
      .object({
        ffmpeg: z.string(),
        ffprobe: z.string(),
        source: z.enum(['setting', 'system', 'npm']),
      })
      .strict()
      .openapi({
        description:
          'the ffmpeg and ffprobe that read animations and videos, and where they were found: FFMPEG_PATH/FFPROBE_PATH, the system (PATH) or the npm builds',
      }),
  })
  .strict()
  .openapi('Readiness');
