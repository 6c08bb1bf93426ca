import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** The MD5 (lower-case hex) and size in bytes of a file, read as a stream. */
export async function fileMd5(path: string): Promise<{ md5: string; size: number }> {
  const hash = createHash('md5');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { md5: hash.digest('hex'), size };
}
