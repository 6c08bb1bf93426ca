import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const CHUNK = 1 << 20;

/**
 * Copies `from` to `to` (creating its directory) and returns the sha256 and size of the bytes
 * written, fsynced, so a manifest written afterwards never vouches for data still in the page cache.
 * Throws ENOENT when the source is gone.
 */
export function copyHashed(from: string, to: string): { bytes: number; sha256: string } {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  const hash = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  const src = fs.openSync(from, 'r');
  let bytes = 0;
  try {
    const dst = fs.openSync(to, 'w', 0o644);
    try {
      for (;;) {
        const n = fs.readSync(src, buf, 0, CHUNK, null);
        if (n === 0) break;
        hash.update(buf.subarray(0, n));
        let off = 0;
        while (off < n) off += fs.writeSync(dst, buf, off, n - off);
        bytes += n;
      }
      fs.fsyncSync(dst);
    } finally {
      fs.closeSync(dst);
    }
  } finally {
    fs.closeSync(src);
  }
  return { bytes, sha256: hash.digest('hex') };
}

export function hashFile(file: string): { bytes: number; sha256: string } {
  const hash = crypto.createHash('sha256');
  const buf = Buffer.allocUnsafe(CHUNK);
  const fd = fs.openSync(file, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
      bytes += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Hard-links `from` as `to`; false where the filesystem cannot (then the caller copies). */
export function tryLink(from: string, to: string): boolean {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  try {
    fs.linkSync(from, to);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EXDEV' || code === 'EPERM' || code === 'EMLINK' || code === 'ENOTSUP' || code === 'ENOENT')
      return false;
    throw err;
  }
}
