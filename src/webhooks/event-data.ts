/**
 * The data a webhook template sees (docs/decisions.md §8), built from an outbox row. Field names are the
 * original Go service's (exported struct fields), JSON keys are its json tags (`imageID`, ...),
 * so existing templates and receivers keep working.
 */
import { diffMetadata, metadataOf, type MetadataDiff } from '../kernel/diff.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { Rating } from '../kernel/post-record.ts';
import {
  payloadRating,
  toWebhookPost,
  type PayloadRating,
  type WebhookPost,
  type WebhookPostFacts,
} from '../kernel/views.ts';
import type { PostEventKind } from './store/events.ts';
import { lenientKeys, toGoJSON } from './template/index.ts';

/** Used when a webhook has no template of its own. */
export const DEFAULT_TEMPLATE = '{"event": {{json .Event}}, "data": {{json .Data}}, "initiator": {{json .Initiator}}}';

// The payload's spelling of the third rating (docs/decisions.md §8) is the post's view's (src/kernel/views.ts).
export { payloadRating, type PayloadRating };

export interface PersonData {
  ID: number;
  Username: string;
}

export interface ChangeData<T> {
  Old: T;
  New: T;
}

/** The kernel's diff as templates see it: Old/New, and the payload's spelling of the rating. */
export type ChangesData = {
  [K in keyof MetadataDiff]: ChangeData<K extends 'rating' ? PayloadRating : NonNullable<MetadataDiff[K]>['old']>;
};

/** The post's view (src/kernel/views.ts) with the uploader as templates see it, and the changes. */
export interface EventData extends Omit<WebhookPost, 'Uploader'> {
  Uploader: PersonData | null;
  Changes: ChangesData;
}

export interface TemplateRoot extends EventData {
  Event: PostEventKind;
  Initiator: PersonData | null;
  Data: EventData;
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

// Symbols are invisible to templates (only own string keys are reachable) and to `len`/`if`/range.
const hidden = <T extends object>(obj: T, symbol: symbol, value: unknown): T =>
  Object.defineProperty(obj, symbol, { value, enumerable: false });

function person(id: number, name: string): PersonData {
  return hidden({ ID: id, Username: name }, toGoJSON, function (this: PersonData) {
    return { id: this.ID, username: this.Username };
  });
}

function change<T>(oldValue: T, newValue: T): ChangeData<T> {
  return hidden({ Old: oldValue, New: newValue }, toGoJSON, function (this: ChangeData<T>) {
    return { old: this.Old, new: this.New };
  });
}

/** Only what changed (the kernel's one diff); a missing key reads as empty in templates, not an error. */
export function computeChanges(
  event: PostEventKind,
  post: EventFacts['post'],
  previous: EventFacts['previous'],
): ChangesData {
  const changes: ChangesData = {};
  if (event === 'update' && previous) {
    const diff = diffMetadata(previous, metadataOf(post));
    if (diff.text) changes.text = change(diff.text.old, diff.text.new);
    if (diff.tags) changes.tags = change(diff.tags.old, diff.tags.new);
    if (diff.rating) changes.rating = change(payloadRating(diff.rating.old), payloadRating(diff.rating.new));
  }
  return hidden(changes, lenientKeys, true);
}

export function buildEventData(f: EventFacts): TemplateRoot {
  const { post } = f;
  const changes = computeChanges(f.event, post, f.previous);
  const view = toWebhookPost(post, f.mediaUrl);
  const data: EventData = hidden(
    // The view's key order is the data's; the uploader gets its JSON spelling here.
    { ...view, Uploader: view.Uploader && person(view.Uploader.id, view.Uploader.name), Changes: changes },
    toGoJSON,
    function (this: EventData) {
      return {
        imageID: this.ImageID,
        text: this.Text,
        rating: this.Rating,
        tags: this.Tags,
        imageURL: this.ImageURL,
        createdAt: this.CreatedAt,
        uploader: this.Uploader,
        // Only update events carry `changes` (docs/decisions.md §8); undefined keys are left out of the JSON.
        changes: f.event === 'update' ? this.Changes : undefined,
      };
    },
  );
  return {
    Event: f.event,
    Initiator: f.initiator && person(f.initiator.id, f.initiator.name),
    Data: data,
    ...data,
  };
}

/** Template data for an outbox row; the initiator's name is the one recorded when the event was queued. */
export function eventDataFromOutbox(row: OutboxRow, initiatorName: string | null, mediaUrl: string): TemplateRoot {
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
export function sampleEventData(event: PostEventKind, mediaUrl: string): TemplateRoot {
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
