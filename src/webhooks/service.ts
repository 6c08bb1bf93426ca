/**
 * Webhook management (docs/decisions.md §8): each user manages only their own webhooks (anyone else's is
 * 404, so ids reveal nothing), at most 10 each. The secret is write-only: no view carries it.
 */
import { isUtf8 } from 'node:buffer';
import { AppError, invalid, notFound } from '../errors.ts';
import type { PostEventKind } from '../kernel/outbox.ts';
import { UUID_PATTERN } from '../util/uuid.ts';
import { defaultBody } from './default-body.ts';
import { DEFAULT_TEMPLATE, sampleEventData, type EventPayload } from './event-data.ts';
import type { AttemptRow, WebhookPatch, WebhookRepository, WebhookRow } from '../webhook-store/webhook-repository.ts';
import type { CreateWebhook, PatchWebhook, PreviewWebhook, WebhookView } from './schemas.ts';
import { checkUrlOnSave, ForbiddenTargetError, type Resolver } from './ssrf.ts';
import {
  compileTemplate,
  TEMPLATE_LIMITS,
  TemplateError,
  type CompiledTemplate,
  type Value,
} from '../../lib/go-template/index.ts';

export const MAX_WEBHOOKS_PER_USER = 10;

export type { WebhookView } from './schemas.ts';

export const toWebhookView = (w: WebhookRow): WebhookView => ({
  id: w.id,
  label: w.label,
  url: w.url,
  events: w.events,
  state: w.state,
  failureCount: w.failureCount,
  lastDeliveryAt: w.lastDeliveryAt,
  lastResponseStatus: w.lastResponseStatus,
  createdAt: w.createdAt,
  template: w.template,
});

function checkBodySize(body: string): string | undefined {
  const bytes = Buffer.byteLength(body, 'utf8');
  if (bytes > TEMPLATE_LIMITS.maxOutputBytes)
    return `rendered body is ${bytes} bytes; at most ${TEMPLATE_LIMITS.maxOutputBytes} are allowed`;
  return undefined;
}

/** Why a rendered body cannot be sent, or undefined when it is a JSON document within the size limit. */
export function checkRenderedBody(body: string): string | undefined {
  const tooLarge = checkBodySize(body);
  if (tooLarge) return tooLarge;
  try {
    JSON.parse(body);
    return undefined;
  } catch (err) {
    const message = (err as Error).message;
    // Point at the spot in the output, since that is what the template author has to look for.
    const at = /position (\d+)/.exec(message);
    if (!at) return `rendered body is not valid JSON: ${message}`;
    const before = body.slice(0, Number(at[1])).split('\n');
    return `rendered body is not valid JSON: ${message} (output line ${before.length}, column ${before[before.length - 1].length + 1})`;
  }
}

/**
 * Parsed templates by source text. The dispatcher renders the same few templates for every
 * delivery, and parsing cost more than rendering; a parsed template holds no state between
 * renders. Bounded, since every distinct template saved or previewed passes through here.
 */
const parsed = new Map<string, CompiledTemplate>();
const MAX_PARSED = 200;

function compiled(source: string): CompiledTemplate {
  let t = parsed.get(source);
  if (!t) {
    t = compileTemplate(source); // throws before anything is cached
    if (parsed.size >= MAX_PARSED) parsed.clear();
    parsed.set(source, t);
  }
  return t;
}

/** A rendered body that cannot be sent: not JSON, or too large. */
export class RenderedBodyError extends Error {}

/** The engine's raw output for `source` (bytes, one char each; throws TemplateError), as Go's Execute gives it. */
export function renderTemplate(source: string, data: Value): string {
  return compiled(source).render(data);
}

const ASCII = /^[\x00-\x7f]*$/;

/** At most 3 UTF-8 bytes a character: this many are within TEMPLATE_LIMITS.maxOutputBytes (262,144 bytes). */
const DEFAULT_BODY_FAST_MAX_CHARS = 65_536;

/** Go's unicode.IsSpace: an all-space template is no template, as strings.TrimSpace made it in the original. */
const ALL_SPACE = /^[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/**
 * Renders `template` (or the default) with `data`, the one way previews, saves and deliveries all
 * render (the default's body written without the engine, the same bytes: default-body.ts); returns
 * the body or throws TemplateError for parse and runtime errors, or RenderedBodyError for a body
 * that is not sendable JSON (or not UTF-8, which Go would have sent).
 */
export function renderBody(template: string | null | undefined, data: EventPayload): string {
  const source = template == null || ALL_SPACE.test(template) ? DEFAULT_TEMPLATE : template;
  if (source === DEFAULT_TEMPLATE) {
    // The same bytes without the engine (default-body.ts); a body this size is within every limit of the
    // engine's, and a larger one is left to it, so its limits and their errors are the ones that apply.
    const body = defaultBody(data.json);
    if (body.length <= DEFAULT_BODY_FAST_MAX_CHARS) return body;
  }
  const out = renderTemplate(source, data.value);
  let body = out;
  if (!ASCII.test(out)) {
    const bytes = Buffer.from(out, 'latin1');
    if (!isUtf8(bytes)) throw new RenderedBodyError('rendered body is not valid UTF-8');
    body = bytes.toString('utf8');
  }
  // The default template's body is three `json` values in fixed JSON text, so it is JSON by
  // construction: only its size is checked. Anyone's own template is checked whole.
  const problem = source === DEFAULT_TEMPLATE ? checkBodySize(body) : checkRenderedBody(body);
  if (problem) throw new RenderedBodyError(problem);
  return body;
}

export interface WebhookServiceDeps {
  repo: WebhookRepository;
  /** Read at call time: tests flip webhookAllowPrivate, and set mediaUrl after start-up. */
  config: { webhookAllowPrivate: boolean; mediaUrl: string };
  resolver?: Resolver;
  /** woken when a webhook may have become deliverable again (reactivation) */
  dispatcher?: { kick(): void };
}

export class WebhookService {
  constructor(private readonly deps: WebhookServiceDeps) {}

  list(ownerId: number): WebhookView[] {
    return this.deps.repo.listByOwner(ownerId).map(toWebhookView);
  }

  get(ownerId: number, id: string): WebhookView {
    return toWebhookView(this.owned(ownerId, id));
  }

  async create(ownerId: number, input: CreateWebhook): Promise<WebhookView> {
    // Cheap refusal before any DNS work; the insert re-checks atomically.
    if (this.deps.repo.countByOwner(ownerId) >= MAX_WEBHOOKS_PER_USER) throw this.tooMany();
    const url = await this.checkUrl(input.url);
    this.checkTemplate(input.template ?? null, input.events);
    const row = this.deps.repo.insertWithin(MAX_WEBHOOKS_PER_USER, {
      ownerId,
      label: input.label ?? null,
      url,
      secret: input.secret,
      events: input.events,
      template: input.template ?? null,
    });
    if (!row) throw this.tooMany();
    return toWebhookView(row);
  }

  async update(ownerId: number, id: string, patch: PatchWebhook): Promise<WebhookView> {
    const current = this.owned(ownerId, id);
    const changes: WebhookPatch = { ...patch };
    if (patch.url !== undefined) changes.url = await this.checkUrl(patch.url);
    // Any change to what gets rendered is test-rendered against the resulting whole.
    if (patch.template !== undefined || patch.events !== undefined) {
      this.checkTemplate(
        patch.template !== undefined ? patch.template : current.template,
        patch.events ?? current.events,
      );
    }
    const row = this.deps.repo.update(this.owned(ownerId, id).id, changes);
    if (!row) throw notFound('webhook not found');
    return toWebhookView(row);
  }

  delete(ownerId: number, id: string): void {
    if (!this.deps.repo.delete(this.owned(ownerId, id).id)) throw notFound('webhook not found');
  }

  reactivate(ownerId: number, id: string): WebhookView {
    const row = this.deps.repo.reactivate(this.owned(ownerId, id).id);
    if (!row) throw notFound('webhook not found');
    this.deps.dispatcher?.kick();
    return toWebhookView(row);
  }

  attempts(ownerId: number, id: string): AttemptRow[] {
    return this.deps.repo.latestAttempts(this.owned(ownerId, id).id, 50);
  }

  preview(input: PreviewWebhook): { body: string } {
    return { body: this.renderChecked(input.template ?? null, input.event) };
  }

  // ---- helpers ---------------------------------------------------------------------------

  private owned(ownerId: number, id: string): WebhookRow {
    const row = UUID_PATTERN.test(id) ? this.deps.repo.getOwned(id.toLowerCase(), ownerId) : undefined;
    if (!row) throw notFound('webhook not found');
    return row;
  }

  private tooMany(): AppError {
    return new AppError('conflict', `a user may have at most ${MAX_WEBHOOKS_PER_USER} webhooks`);
  }

  /** The URL as stored (WHATWG-normalised), or 400 on ['url'] saying why it is refused. */
  private async checkUrl(raw: string): Promise<string> {
    try {
      const url = await checkUrlOnSave(raw, {
        allowPrivate: this.deps.config.webhookAllowPrivate,
        resolver: this.deps.resolver,
      });
      return url.href;
    } catch (err) {
      if (err instanceof ForbiddenTargetError)
        throw invalid(['url'], `url ${err.message}`, 'invalid_url', 'a public http(s) URL', 'string');
      throw err;
    }
  }

  /** Test-renders the template for every subscribed event, as docs/decisions.md §8 asks on save. */
  private checkTemplate(template: string | null, events: readonly PostEventKind[]): void {
    for (const event of events) this.renderChecked(template, event);
  }

  /** Why `template` cannot render the sample data of `event`, or undefined when it can. */
  private templateProblem(template: string | null, event: PostEventKind): [string, Error] | undefined {
    try {
      renderBody(template, sampleEventData(event, this.deps.config.mediaUrl));
      return undefined;
    } catch (err) {
      if (err instanceof TemplateError || err instanceof RenderedBodyError) {
        return [`${err.message} (rendering sample data for the ${event} event)`, err];
      }
      throw err;
    }
  }

  private renderChecked(template: string | null, event: PostEventKind): string {
    const problem = this.templateProblem(template, event);
    if (!problem) return renderBody(template, sampleEventData(event, this.deps.config.mediaUrl));
    const [message, err] = problem;
    if (err instanceof TemplateError) {
      throw invalid(['template'], message, 'invalid_template', 'a valid template', 'string');
    }
    throw invalid(['template'], message, 'invalid_template', 'a template rendering JSON', 'string');
  }

  /**
   * Saved webhooks whose template today's rules refuse (docs/decisions.md §8: stricter rules came
   * after they were saved). They keep their webhook; their deliveries fail as template errors.
   */
  refusedTemplates(): { webhook: string; label: string | null; problem: string }[] {
    const refused: { webhook: string; label: string | null; problem: string }[] = [];
    for (const id of this.deps.repo.subscriptions.ids()) {
      const w = this.deps.repo.subscriptions.get(id);
      if (!w || w.template === null) continue;
      const problem = w.events.map((e) => this.templateProblem(w.template, e)).find((p) => p !== undefined);
      if (problem) refused.push({ webhook: id, label: w.label, problem: problem[0] });
    }
    return refused;
  }
}
