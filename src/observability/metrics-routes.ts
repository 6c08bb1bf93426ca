/** GET /metrics: the app's Prometheus metrics, for whoever metricsAccess lets in (docs/decisions.md §13). */
import { always, error, type Feature } from '../http/endpoint.ts';
import type { AppMetrics } from './metrics.ts';
import { metricsAccess } from './metrics-access.ts';

interface MetricsRouteDeps {
  config: { metricsToken?: string };
  /** the app's own registry (src/app.ts makes one per app) */
  metrics: Pick<AppMetrics, 'scrape'>;
}

export const metricsFeature: Feature<MetricsRouteDeps> = {
  name: 'metrics',
  endpoints: [
    {
      method: 'get',
      path: '/metrics',
      operationId: 'metrics',
      tag: 'operations',
      summary:
        'Prometheus metrics (text exposition format); needs `Authorization: Bearer <METRICS_TOKEN>` when that is set, else answers loopback clients only',
      responses: {
        ...always,
        200: { description: 'metrics', contentTypes: ['text/plain'] },
        401: error('METRICS_TOKEN is set and the bearer token is missing or wrong (or X-Access-Key is invalid)'),
        404: error('METRICS_TOKEN is unset and the client is not on a loopback address'),
      },
      handle: (deps) => [
        metricsAccess(deps.config),
        async (ctx) => {
          const { contentType, text } = await deps.metrics.scrape();
          ctx.set('Cache-Control', 'no-store');
          ctx.type = contentType;
          ctx.body = text;
        },
      ],
    },
  ],
};
