/**
 * The data a webhook template sees (docs/decisions.md §8), built from an outbox row: the original Go
 * service's payload (its JSON form, then its Go types, src/webhooks/payload-types.ts), so existing
 * templates and receivers keep working.
 */
import { diffMetadata, metadataOf } from '../kernel/diff.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { Rating } from '../kernel/post-record.ts';
import { payloadRating, toWebhookPost, type PayloadRating, type WebhookPostFacts } from '../kernel/views.ts';
import { payloadValue, type PayloadJSON } from './payload-types.ts';
import type { PostEventKind } from '../webhook-store/events.ts';
import type { Value } from '../../lib/go-template/index.ts';

/**
 * Used when a webhook has no template of its own, or an empty one (all white space), as the
 * original sent its default payload then. The interface fixes this body (spaces after the colons).
 */
export const DEFAULT_TEMPLATE = '{"event": {{json .Event}}, "data": {{json .Data}}, "initiator": {{json .Initiator}}}';

// The payload's spelling of the third rating (docs/decisions.md §8) is the post's view's (src/kernel/views.ts).
export { payloadRating, type PayloadRating };

/** The payload of one event: its JSON form (the original's json tags) and the value templates see. */
export interface EventPayload {
  json: PayloadJSON;
  /** The value templates see; made on first use. */
  readonly value: Value;
}

/** The facts about one event that the data is built from; what an outbox row plus user names give. */
export interface EventFacts {
  event: PostEventKind;
  post: WebhookPostFacts;
  /** Metadata before an update. */
  previous?: { text: string; rating: Rating; tags: string[] };
  initiator: { id: number; name: string } | null;
  mediaUrl: string;
}

/** A Date as Go's RFC3339Nano in UTC: fractional seconds only when non-zero, without trailing zeros. */
function isoTime(d: Date): string {
  const iso = d.toISOString();
  return iso.replace(/\.?0*Z$/, 'Z');
}

/** Only what changed (the kernel's one diff); null outside updates, as the original's nil Changes. */
export function computeChanges(
  event: PostEventKind,
  post: EventFacts['post'],
  previous: EventFacts['previous'],
): PayloadJSON['data']['changes'] | null {
  if (event !== 'update') return null;
  const changes: NonNullable<PayloadJSON['data']['changes']> = {};
  if (previous) {
    const diff = diffMetadata(previous, metadataOf(post));
    if (diff.text) changes.text = { old: diff.text.old, new: diff.text.new };
    if (diff.tags) changes.tags = { old: diff.tags.old, new: diff.tags.new };
    if (diff.rating) changes.rating = { old: payloadRating(diff.rating.old), new: payloadRating(diff.rating.new) };
  }
  return changes;
}

/** The payload as the original's JSON has it: `changes` only on update, `uploader` only when known. */
export function payloadJSON(f: EventFacts): PayloadJSON {
  const view = toWebhookPost(f.post, f.mediaUrl);
  const changes = computeChanges(f.event, f.post, f.previous);
  return {
    event: f.event,
    data: {
      imageID: view.ImageID,
      text: view.Text,
      rating: view.Rating,
      tags: view.Tags,
      imageURL: view.ImageURL,
      createdAt: isoTime(view.CreatedAt),
      ...(changes ? { changes } : {}),
      ...(view.Uploader ? { uploader: { id: view.Uploader.id, username: view.Uploader.name } } : {}),
    },
    ...(f.initiator ? { initiator: { id: f.initiator.id, username: f.initiator.name } } : {}),
  };
}

export function buildEventData(f: EventFacts): EventPayload {
  const json = payloadJSON(f);
  // Made when a template asks for it: the default's body is written from the JSON form (default-body.ts).
  let value: Value | undefined;
  return {
    json,
    get value() {
      return (value ??= payloadValue(json));
    },
  };
}

/** Template data for an outbox row; the initiator's name is the one recorded when the event was queued. */
export function eventDataFromOutbox(row: OutboxRow, initiatorName: string | null, mediaUrl: string): EventPayload {
  if (row.event === 'reindex') throw new Error('reindex rows are not webhook events');
  return buildEventData({
    event: row.event,
    post: row.payload.post,
    previous: row.payload.previous,
    initiator: row.initiatorId !== null ? { id: row.initiatorId, name: initiatorName ?? '' } : null,
    mediaUrl,
  });
}

/** Sample data for previews and for test-rendering templates on save. */
export function sampleEventData(event: PostEventKind, mediaUrl: string): EventPayload {
  return buildEventData({
    event,
    post: {
      seq: 42,
      id: '01890a5d-ac96-774b-bcce-b302099a8057',
      ext: 'png',
      text: 'Sunset over the harbour\n"golden hour" <3',
      rating: 'violent',
      createdAt: '2024-05-01T10:20:30.123Z',
      uploaderId: 7,
      uploaderName: 'alice',
      tags: [{ name: 'harbour' }, { name: 'sunset' }],
    },
    previous: { text: 'Sunset', rating: 'moderate', tags: ['sunset', 'sea'] },
    initiator: { id: 7, name: 'alice' },
    mediaUrl,
  });
}
