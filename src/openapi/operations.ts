/**
 * Every endpoint the app serves, in the order the OpenAPI document lists them: the features
 * (src/features.ts) with the document's own endpoints (./openapi-routes.ts) after the service's
 * health and metrics, where the document has always listed them. The app mounts this list and the
 * registry turns it into the document; the contract test validates recorded responses against it.
 */
import type { AppDeps } from '../app-services.ts';
import { FEATURES } from '../features.ts';
import type { Feature, Operation } from '../http/endpoint.ts';
import { openApiFeature } from './openapi-routes.ts';
export type { Method, Operation, Reply } from '../http/endpoint.ts';

const metricsAt = FEATURES.findIndex((f) => f.name === 'metrics');
export const SERVED: readonly Feature<AppDeps>[] = [
  ...FEATURES.slice(0, metricsAt + 1),
  openApiFeature,
  ...FEATURES.slice(metricsAt + 1),
];

export const OPERATIONS: Operation[] = SERVED.flatMap((f) => f.endpoints);
