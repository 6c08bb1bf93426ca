import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Writes a stream (an object read from the media store) to `to`, creating its directory, and returns
 * the sha256 and size of the bytes written. `sync` fsyncs the file first: a backup's manifest must
 * never vouch for data still in the page cache; a temporary copy needs no such promise.
 */
export async function copyStreamHashed(
  from: Readable,
  to: string,
  opts: { sync: boolean },
): Promise<{ bytes: number; sha256: string }> {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const hash = crypto.createHash('sha256');
  let bytes = 0;
  const out = await fs.promises.open(to, 'w', 0o644);
  try {
    for await (const chunk of from as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.length;
      await out.write(chunk);
    }
    if (opts.sync) await out.sync();
  } finally {
    await out.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** The sha256 (hex) of a stream's bytes, read to its end. */
export async function hashStream(from: Readable): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of from as AsyncIterable<Buffer>) hash.update(chunk);
  return hash.digest('hex');
}
