import Router from '@koa/router';
import { currentUser, requireAuth } from '../accounts/permissions.ts';
import { jsonBody, optionalBody, requestBody } from '../http/body.ts';
import type { AppState } from '../http/context.ts';
import { parse } from '../http/validate.ts';
import { CreateWebhook, PatchWebhook, PreviewWebhook } from './schemas.ts';
import type { WebhookService } from './service.ts';

/** Webhook management, docs/decisions.md §8. Every route needs a credential; only the owner sees a webhook. */
export function webhookRoutes(deps: { webhooks: WebhookService }): Router<AppState> {
  const router = new Router<AppState>({ prefix: '/api/webhook' });
  const { webhooks } = deps;
  router.use(requireAuth);
  // Records and previews are per-user and may echo templates: keep them out of shared caches.
  router.use(async (ctx, next) => {
    await next();
    ctx.set('Cache-Control', 'no-store');
  });

  router.post('/', jsonBody(), async (ctx) => {
    const input = parse(CreateWebhook, requestBody(ctx));
    ctx.status = 201;
    ctx.body = await webhooks.create(currentUser(ctx).id, input);
  });

  router.get('/', (ctx) => {
    ctx.body = webhooks.list(currentUser(ctx).id);
  });

  // Before '/:id' so "preview" is never taken for an id.
  router.post('/preview', jsonBody(), (ctx) => {
    ctx.body = webhooks.preview(parse(PreviewWebhook, requestBody(ctx)));
  });

  router.get('/:id', (ctx) => {
    ctx.body = webhooks.get(currentUser(ctx).id, ctx.params.id);
  });

  router.patch('/:id', jsonBody(), async (ctx) => {
    const patch = parse(PatchWebhook, optionalBody(ctx));
    ctx.body = await webhooks.update(currentUser(ctx).id, ctx.params.id, patch);
  });

  router.delete('/:id', (ctx) => {
    webhooks.delete(currentUser(ctx).id, ctx.params.id);
    ctx.status = 204;
  });

  router.post('/:id/reactivate', (ctx) => {
    ctx.body = webhooks.reactivate(currentUser(ctx).id, ctx.params.id);
  });

  router.get('/:id/deliveries', (ctx) => {
    ctx.body = webhooks.attempts(currentUser(ctx).id, ctx.params.id);
  });

  return router;
}
