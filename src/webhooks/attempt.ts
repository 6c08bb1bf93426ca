/**
 * One attempt at a delivery: its body (rendered by the lane with the webhook's template as it is now),
 * the target URL checked against the address policy, a signed POST (send.ts), and the outcome as
 * the owner will read it in the attempt log. It never throws: every way of failing is an outcome,
 * except a shutdown, which is INTERRUPTED (not the receiver's fault, so nothing is recorded).
 */
import crypto from 'node:crypto';
import type { DeliveryRow, DeliveryTarget, PostEventKind } from '../webhook-store/webhook-repository.ts';
import { SendTimeoutError, type PostWebhook } from './send.ts';
import { checkUrlShape, type TargetAgents } from './ssrf.ts';

const USER_AGENT = 'imgpost-webhooks/1';
/** Stored error messages are for people; keep them short. */
const clip = (s: string, n = 500) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The key goes in as the string (createHmac encodes it as UTF-8, the same bytes as a Buffer of it):
 * on Node 24 (not on 20), createHmac asks whether a Buffer key is a KeyObject or a CryptoKey by reading a
 * private slot and catching the TypeError, two thrown errors per signature (several times the cost
 * of the HMAC itself; issue 28, bench/notes/node24.md). A string skips both checks.
 */
export const signBody = (body: string | Uint8Array, secret: string): string =>
  crypto.createHmac('sha256', secret).update(body).digest('hex');

/**
 * checkUrlShape's answers that passed, per policy: it depends on nothing but the URL's text and
 * the policy, and a backlog sends to the same few URLs over and over. Bounded; a refusal is not
 * kept (it is the rare case, and its message is made afresh).
 */
const checked = { true: new Map<string, URL>(), false: new Map<string, URL>() };
const MAX_CHECKED = 256;

function checkedUrl(raw: string, allowPrivate: boolean): URL {
  const cache = allowPrivate ? checked.true : checked.false;
  let url = cache.get(raw);
  if (url) return url;
  url = checkUrlShape(raw, allowPrivate);
  if (cache.size >= MAX_CHECKED) cache.delete(cache.keys().next().value!);
  cache.set(raw, url);
  return url;
}

export interface Outcome {
  outcome: 'success' | 'failure';
  responseStatus: number | null;
  error: string | null;
}

/** The attempt was cut short by shutdown: no outcome to record. */
export const INTERRUPTED = Symbol('interrupted');

export interface AttemptContext {
  agents: TargetAgents;
  /** The HTTP client (send.ts's http.request POST unless the dispatcher was given another). */
  send: PostWebhook;
  /** Until response headers arrive; read at each send (the dispatcher's configure() changes it). */
  timeoutMs(): number;
  /** Read at send time: a change applies to the next attempt. */
  config: { webhookAllowPrivate: boolean; mediaUrl: string };
}

const failure = (error: string, responseStatus: number | null = null): Outcome => ({
  outcome: 'failure',
  responseStatus,
  error: clip(error),
});

/**
 * Not an async function: the send's promise is mapped with one `then` rather than awaited in a frame of its
 * own, one promise and one turn of the microtask queue less per delivery on the dispatcher's thread.
 */
export function attemptDelivery(
  ctx: AttemptContext,
  hook: DeliveryTarget,
  /** The body (or why the template could not render it), and its signature when it was made ahead with the body. */
  { event, body, signature }: { event: PostEventKind; body: string | Uint8Array | Error; signature?: string },
  d: DeliveryRow,
  signal: AbortSignal,
): Promise<Outcome | typeof INTERRUPTED> {
  if (body instanceof Error) return Promise.resolve(failure(`template: ${body.message.replace(/^template: /, '')}`));
  let url: URL;
  try {
    // IP literals never reach the agent's lookup, so the policy is applied to them here.
    url = checkedUrl(hook.url, ctx.config.webhookAllowPrivate);
  } catch (err) {
    return Promise.resolve(failure(`refused: ${(err as Error).message}`));
  }

  if (signal.aborted) return Promise.resolve(INTERRUPTED);
  return ctx
    .send(url, {
      body,
      agent: ctx.agents.forUrl(url),
      timeoutMs: ctx.timeoutMs(),
      signal,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': USER_AGENT,
        'X-Signature': signature ?? signBody(body, hook.secret),
        'X-Webhook-Event': event,
        'X-Webhook-Delivery': d.id,
      },
    })
    .then(outcomeOf, (err: unknown) => {
      if (signal.aborted) return INTERRUPTED;
      if (err instanceof SendTimeoutError) return failure(err.message);
      return failure(describeNetworkError(err as Error & { code?: string }));
    });
}

const SUCCESS: Outcome[] = [];

function outcomeOf(status: number): Outcome {
  if (status >= 200 && status < 300)
    return (SUCCESS[status - 200] ??= Object.freeze({ outcome: 'success', responseStatus: status, error: null }));
  if (status >= 300 && status < 400) return failure(`redirect (HTTP ${status}) not followed`, status);
  return failure(`HTTP ${status}`, status);
}

/** The socket error (or our refusal) is what the owner needs to see. */
function describeNetworkError(e: Error & { code?: string }): string {
  const message = e.message;
  if (/refused to connect to/.test(message)) return `refused: ${message}`;
  return e.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
