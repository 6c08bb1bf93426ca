import fs from 'node:fs';
import sharp from 'sharp';

export const VECTORS_DIR = new URL('../fixtures/hash-vectors/', import.meta.url).pathname;

/** The hash vectors: file name → expected hash. */
export const VECTORS: Record<string, string> = Object.fromEntries(
  fs
    .readFileSync(VECTORS_DIR + 'expected.txt', 'utf8')
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/) as [string, string]),
);

export const vector = (name: string): Buffer => fs.readFileSync(VECTORS_DIR + name);

/** A distinct PNG per seed: random noise blocks, so its hash differs from other seeds'. */
export async function randomImage(
  seed: number,
  width = 64,
  height = 48,
  format: 'png' | 'jpeg' = 'png',
): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let x = (seed * 2654435761) >>> 0 || 1;
  const blocks: number[] = [];
  for (let i = 0; i < 64; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    blocks.push(x & 0xff);
  }
  for (let py = 0; py < height; py++)
    for (let px = 0; px < width; px++) {
      const v = blocks[Math.floor((py * 8) / height) * 8 + Math.floor((px * 8) / width)];
      raw.fill(v, (py * width + px) * 3, (py * width + px) * 3 + 3);
    }
  const img = sharp(raw, { raw: { width, height, channels: 3 } });
  return format === 'png' ? img.png().toBuffer() : img.jpeg({ quality: 90 }).toBuffer();
}

export interface UploadOptions {
  image?: Buffer | null;
  type?: string;
  metadata?: unknown;
  /** a raw metadata string, sent as is */
  rawMetadata?: string;
  force?: string;
  key?: string;
}

/** multipart/form-data for POST /api/post/ */
export function uploadForm(o: UploadOptions): FormData {
  const form = new FormData();
  if (o.image) form.append('image', new Blob([new Uint8Array(o.image)], { type: o.type ?? 'image/png' }), 'upload');
  if (o.rawMetadata !== undefined) form.append('metadata', new Blob([o.rawMetadata], { type: 'application/json' }));
  else if (o.metadata !== undefined)
    form.append('metadata', new Blob([JSON.stringify(o.metadata)], { type: 'application/json' }));
  if (o.force !== undefined) form.append('force', o.force);
  return form;
}

/** uploadForm as the bytes on the wire and its Content-Type, for tests that send the body themselves. */
export async function encodedUploadForm(o: UploadOptions): Promise<{ type: string; body: Buffer }> {
  const encoded = new Response(uploadForm(o));
  return { type: encoded.headers.get('content-type')!, body: Buffer.from(await encoded.arrayBuffer()) };
}
