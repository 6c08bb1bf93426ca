/**
 * What a browser does on the wire for the page-view load (issue 28): keep-alive connections, at most
 * six requests at a time to the one origin (HTTP/1.1 browsers' per-host limit), and a per-person
 * cache of validators, so a second visit to a thumbnail asks with If-None-Match and gets a 304.
 * node:http rather than fetch: 50 people fetching 24 thumbnails each make thousands of requests a
 * second, and the load generator shares the two cores with the server it measures.
 */
import http from 'node:http';

export interface Reply {
  status: number;
  etag?: string;
  body: Buffer;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 512 });

export class HttpStatusError extends Error {}

type RequestOptions = { headers?: Record<string, string>; body?: Buffer | string; expect?: number[] };

/**
 * One request; the body is read to its end. Any status not in `expect` throws. A kept-alive
 * connection the server closed just as it was reused (ECONNRESET/EPIPE before any answer) is retried
 * once on a new connection, as browsers do (and as Node's documentation advises, `request.reusedSocket`);
 * "socket hang up" is Node's ECONNRESET before any answer.
 */
export async function request(base: string, method: string, path: string, o: RequestOptions = {}): Promise<Reply> {
  try {
    return await once(base, method, path, o);
  } catch (err) {
    if (!(err instanceof StaleSocketError)) throw err;
    // On a new connection: the next pooled one may have been closed by the same idle time-out.
    return once(base, method, path, o, true);
  }
}

class StaleSocketError extends Error {}

function once(base: string, method: string, path: string, o: RequestOptions, fresh = false): Promise<Reply> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent: fresh ? false : agent,
        headers: {
          ...(o.body !== undefined ? { 'content-length': String(Buffer.byteLength(o.body)) } : {}),
          ...o.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const status = res.statusCode ?? 0;
          if (!(o.expect ?? [200]).includes(status))
            reject(
              new HttpStatusError(
                `${method} ${url.pathname}: ${status} ${body.toString('utf8', 0, Math.min(body.length, 200))}`,
              ),
            );
          else resolve({ status, etag: res.headers.etag, body });
        });
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error(`${method} ${url.pathname}: no answer in 60 s`)));
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')
          ? new StaleSocketError(err.message)
          : err,
      ),
    );
    req.end(o.body);
  });
}

/** Validators a person's browser remembers, oldest forgotten first past `capacity` (bounded for hour-long runs). */
export class ValidatorCache {
  private readonly map = new Map<string, string>();
  hits = 0;
  constructor(private readonly capacity = 3000) {}

  get(url: string): string | undefined {
    const v = this.map.get(url);
    if (v !== undefined) {
      this.map.delete(url);
      this.map.set(url, v);
    }
    return v;
  }

  set(url: string, etag: string): void {
    this.map.delete(url);
    this.map.set(url, etag);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value!);
  }
}

export interface FetchCounts {
  full: number;
  notModified: number;
  bytes: number;
}

/** GETs `paths` six at a time, conditionally when the cache has a validator (304 expected then). */
export async function fetchAll(
  base: string,
  paths: string[],
  cache: ValidatorCache,
  counts: FetchCounts,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < paths.length) {
      const p = paths[next++];
      const known = cache.get(p);
      const reply = await request(base, 'GET', p, known ? { headers: { 'if-none-match': known }, expect: [304] } : {});
      if (reply.status === 304) counts.notModified++;
      else {
        counts.full++;
        counts.bytes += reply.body.length;
        if (reply.etag) cache.set(p, reply.etag);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(6, paths.length) }, lane));
}

/** A multipart/form-data body (the upload and similar-image forms), built once per request. */
export function multipart(parts: { name: string; value: Buffer | string; filename?: string; type?: string }[]): {
  body: Buffer;
  contentType: string;
} {
  const boundary = `----pageview${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
    );
    chunks.push(typeof p.value === 'string' ? Buffer.from(p.value) : p.value, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
