/**
 * The webhook POST as it was before delivery went back on node-fetch (src/webhooks/send.ts):
 * plain http.request over the same agents, with the same guarantees (time-out until headers,
 * bounded drain of the response, one retry when a reused connection was reset). The drain bench
 * runs it beside node-fetch in the same run (`--drain-before`), so the client's cost stays measured.
 */
import http from 'node:http';
import https from 'node:https';
import { MAX_DRAIN_BYTES, MAX_DRAIN_MS, SendTimeoutError, type PostWebhook, type SendOptions } from '../../src/webhooks/send.ts';

function once(url: URL, o: SendOptions): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      agent: o.agent,
      headers: { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body, 'utf8')) },
    });
    let settled = false;
    const finish = (err: Error | undefined, status = 0) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal.removeEventListener('abort', onAbort);
      if (err) reject(Object.assign(err, { reused: req.reusedSocket }));
      else resolve({ status, reused: req.reusedSocket });
    };
    const timer = setTimeout(() => {
      finish(new SendTimeoutError(`timed out after ${o.timeoutMs} ms`));
      req.destroy();
    }, o.timeoutMs);
    const onAbort = () => {
      finish(o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted'));
      req.destroy();
    };
    o.signal.addEventListener('abort', onAbort, { once: true });
    let status: number | undefined;
    // After the headers, the outcome is known: a connection lost while draining the body changes nothing.
    req.on('error', (err) => (status === undefined ? finish(err) : finish(undefined, status)));
    req.on('response', (res) => {
      // The status decides the outcome; the body is of no interest. It is read to its end (a few
      // bytes, normally) so the connection is back in the pool before the next send: resolving
      // at the headers made the next delivery open a new connection while this one was still
      // busy. A receiver that streams a large body, or dawdles over it, loses its connection.
      clearTimeout(timer);
      status = res.statusCode ?? 0;
      const done = () => {
        clearTimeout(drainTimer);
        finish(undefined, status);
      };
      const drainTimer = setTimeout(() => res.destroy(), MAX_DRAIN_MS);
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_DRAIN_BYTES) res.destroy();
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', () => {});
    });
    req.end(o.body, 'utf8');
  });
}

/**
 * POSTs the body; resolves with the status, rejects with the network error (or SendTimeoutError).
 * A receiver may close an idle keep-alive connection just as we reuse it; that request never
 * reached it, so it is sent once more on a fresh connection (as Node's documentation advises)
 * rather than counted as the receiver's failure. A repeat is possible only if the receiver got
 * the request and then reset the connection without answering, and at-least-once allows it: the
 * X-Webhook-Delivery id is the same.
 */
export const postWebhookHttpRequest: PostWebhook = async (url, o) => {
  try {
    return (await once(url, o)).status;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { reused?: boolean };
    if (!e.reused || o.signal.aborted || (e.code !== 'ECONNRESET' && e.code !== 'EPIPE')) throw err;
    return (await once(url, o)).status;
  }
};
