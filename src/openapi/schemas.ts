/**
 * Response shapes, as zod schemas, one file per area under ./schemas/; this module gathers them so
 * `import * as S from './schemas.ts'` names every one. They feed the OpenAPI document (as named
 * components) and the contract test validates every response the suite receives against them, so
 * the document cannot drift from what the service sends. Objects are strict: an undocumented field
 * (say, a leaked passwordHash) fails the test instead of slipping through.
 */
// The shared fields (isoTime, uuid, ...) stay out of S: they are building blocks, not responses.
export { ErrorBody, ValidationIssues } from '../http/shapes.ts';
export { Rating } from '../kernel/shapes.ts';
export * from './schemas/accounts.ts';
export * from './schemas/tags.ts';
export * from './schemas/posts.ts';
export * from './schemas/search.ts';
export * from './schemas/webhooks.ts';
export * from '../health/schemas.ts';
