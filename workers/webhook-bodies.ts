/**
 * Worker thread: reads events and renders their bodies ahead of the webhook dispatcher's sends, on a
 * connection of its own (see src/webhooks/body-thread.ts for why). Started by the dispatcher, on
 * whatever thread that runs; the schema is already up to date.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../src/db/sqlite.ts';
import { Outbox } from '../src/kernel/outbox.ts';
import { SIGNATURE_CHARS, type BodiesRequest, type PreparedBodies } from '../src/webhooks/body-thread.ts';
import { signBody } from '../src/webhooks/attempt.ts';
import { EventBodies } from '../src/webhooks/event-bodies.ts';
import { serveHelper } from '../src/webhooks/helper-thread.ts';

if (!parentPort) throw new Error('workers/webhook-bodies.ts runs as a worker thread');
const db = openDatabase((workerData as { dataDir: string }).dataDir);
const events = new EventBodies(new Outbox(db));

serveHelper<BodiesRequest, PreparedBodies>(
  parentPort,
  ({ template, secret, mediaUrl, items }) => {
    const parts: Buffer[] = [];
    const offsets = new Int32Array(items.length + 1);
    const events: PreparedBodies['events'] = [];
    const postIds: PreparedBodies['postIds'] = [];
    let signatures = '';
    let at = 0;
    for (const [i, [outboxId, initiatorName]] of items.entries()) {
      const body = bodyOf(outboxId, initiatorName, template, mediaUrl);
      offsets[i] = at;
      if (body === null) {
        // Not made: the sending thread sees for itself.
        events.push(null);
        postIds.push(null);
        signatures += BLANK_SIGNATURE;
        continue;
      }
      parts.push(body.bytes);
      at += body.bytes.length;
      events.push(body.event);
      postIds.push(body.postId);
      signatures += signBody(body.bytes, secret);
    }
    offsets[items.length] = at;
    return { bytes: Buffer.concat(parts, at), offsets, signatures, events, postIds };
  },
  () => db.close(),
);

const BLANK_SIGNATURE = ' '.repeat(SIGNATURE_CHARS);

/** The delivery's body as UTF-8, or null when it is not to be sent (gone, not a post event) or its template fails. */
function bodyOf(outboxId: number, initiatorName: string | null, template: string | null, mediaUrl: string) {
  const row = events.row(outboxId);
  // Not sent (the sending thread releases it), or gone: the sending thread sees for itself.
  if (!row || row.event === 'reindex') return null;
  try {
    return {
      event: row.event,
      postId: row.postId,
      bytes: Buffer.from(events.body(row, initiatorName, template, mediaUrl)),
    };
  } catch {
    // A template error is reported by the sending thread, which renders it again.
    return null;
  }
}
