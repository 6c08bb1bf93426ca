/**
 * Every operation the document lists: each feature's endpoints (declared with their handlers, src/features.ts)
 * and the service's own. The registry turns this list into the OpenAPI document; the contract test
 * validates recorded responses against it.
 */
import { FEATURES } from '../features.ts';
import type { Operation } from '../http/endpoint.ts';
import { SERVICE_OPERATIONS } from './operations/service.ts';
export type { Method, Operation, Reply } from '../http/endpoint.ts';

/**
 * The features' operations in their order, with the service's own (health, readiness, metrics and
 * this document, ./operations/service.ts) after the media feature's, where the document has always
 * listed them.
 */
const mediaAt = FEATURES.findIndex((f) => f.name === 'media');
export const OPERATIONS: Operation[] = [
  ...FEATURES.slice(0, mediaAt + 1).flatMap((f) => f.endpoints),
  ...SERVICE_OPERATIONS,
  ...FEATURES.slice(mediaAt + 1).flatMap((f) => f.endpoints),
];
