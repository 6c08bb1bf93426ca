/**
 * zod with zod-to-openapi's `.openapi()` method. Extending patches ZodType's prototype, so it also
 * reaches schemas other modules built before this ran (the request schemas the routes use).
 * Every module that calls `.openapi()` imports `z` from here, which guarantees the order.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };

// Fields every layer's shapes are built from (the post's shapes: src/kernel/shapes.ts).
export const isoTime = z.string().datetime().openapi({ example: '2024-05-01T10:00:00.000Z' });
/** Post times have exactly milliseconds (docs/decisions.md §4: YYYY-MM-DDThh:mm:ss.mmmZ). */
export const postTime = z.string().datetime({ precision: 3 }).openapi({ example: '2024-05-01T10:00:00.000Z' });
export const uuid = z.string().uuid();
