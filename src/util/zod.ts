/**
 * zod with zod-to-openapi's `.openapi()` method. Extending patches ZodType's prototype, so it also
 * reaches schemas other modules built before this ran (the request schemas the routes use).
 * Every module that calls `.openapi()` imports `z` from here, which guarantees the order.
 */
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);

export { z };
