import fsp from 'node:fs/promises';
import { Readable } from 'node:stream';

/** Largest read: what fs.createReadStream reads at a time. */
const CHUNK = 64 * 1024;

/**
 * `length` bytes of a file from `start`, as a stream that opens the file on its first read.
 *
 * Why not fs.createReadStream: it opens the file as it is made, and GET /media makes the body before
 * it knows whether the answer is a 304 (the ETag needs the size, which comes with the read), so
 * every 304 cost an open and a close for nothing; and it reads 64 KiB buffers even for a 6 KiB
 * thumbnail. Under the page-view load (24 thumbnails a page view, about half of them revalidated)
 * those were most of the server's system calls and much of its garbage (issue 28). Here a body
 * destroyed unread never touches the file, and reads are sized to what is left.
 */
export function fileBody(file: string, start: number, length: number): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    const handle = await fsp.open(file, 'r');
    try {
      for (let position = start, left = length; left > 0; ) {
        const buf = Buffer.allocUnsafe(Math.min(left, CHUNK));
        const { bytesRead } = await handle.read(buf, 0, buf.length, position);
        // Shorter than its size when stat-ed: the caller already sent that size as Content-Length.
        if (bytesRead === 0) throw new Error(`${file} ended ${left} bytes early`);
        position += bytesRead;
        left -= bytesRead;
        yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
      }
    } finally {
      await handle.close();
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}
