/** The `operations` tag: health, readiness, metrics and this document. */
import { always, error, type Operation, type Reply } from '../../http/endpoint.ts';

/** The service's endpoints are plain GETs: one line each rather than one block each. */
const operationsGet = (
  path: string,
  operationId: string,
  summary: string,
  responses: Record<number, Reply>,
): Operation => ({
  method: 'get',
  path,
  operationId,
  tag: 'operations',
  summary,
  responses: { ...always, ...responses },
});
import * as S from '../schemas.ts';

export const SERVICE_OPERATIONS: Operation[] = [
  operationsGet('/healthz', 'health', 'Liveness: the process answers', {
    200: { description: 'alive', schema: S.Health },
  }),
  operationsGet(
    '/readyz',
    'readiness',
    'Readiness: SQLite answers and the posts index can serve (503 otherwise); reports the cluster status',
    {
      200: { description: 'ready', schema: S.Readiness },
      503: { description: 'not ready', schema: S.Readiness },
    },
  ),
  operationsGet(
    '/metrics',
    'metrics',
    'Prometheus metrics (text exposition format); needs `Authorization: Bearer <METRICS_TOKEN>` when that is set, else answers loopback clients only',
    {
      200: { description: 'metrics', contentTypes: ['text/plain'] },
      401: error('METRICS_TOKEN is set and the bearer token is missing or wrong (or X-Access-Key is invalid)'),
      404: error('METRICS_TOKEN is unset and the client is not on a loopback address'),
    },
  ),
  operationsGet('/openapi.json', 'openapi', 'This document', {
    200: { description: 'OpenAPI 3.1', schema: S.OpenApiDocument },
  }),
  operationsGet(
    '/openapi-3.0.json',
    'openapi30',
    'This document as OpenAPI 3.0, for tools that do not take 3.1 (openapi-generator 7.17)',
    { 200: { description: 'OpenAPI 3.0.3', schema: S.OpenApiDocument } },
  ),
  operationsGet('/docs', 'docs', 'A browsable page rendering this document', {
    200: { description: 'HTML', contentTypes: ['text/html'] },
  }),
];
