/**
 * Piscina worker: validates an uploaded image and computes its perceptual hash.
 *
 * Runs off the main thread because decoding is CPU-bound. Failures caused by the upload itself
 * are thrown as `IMAGE_INVALID: <message>` because Error subclasses do not survive the worker
 * boundary; anything else (e.g. the file vanished) is a server fault and propagates unchanged.
 */
import { readFile } from 'node:fs/promises';
import sharp, { type Metadata, type Sharp, type SharpOptions } from 'sharp';
import { dihedralHashes } from '../src/hashing/dihedral.ts';
import { dctHash } from '../src/hashing/phash.ts';
import {
  INVALID_PREFIX,
  type AnalyseRequest,
  type ImageInfo,
  type RobustRequest,
  type RobustResult,
  type ThumbnailRequest,
  type ThumbnailResult,
} from '../src/hashing/tasks.ts';
import { robustDescriptor } from '../src/robust/descriptor.ts';
import { UNREADABLE } from '../src/robust/format.ts';
import { DESCRIPTOR_SOURCE } from '../src/robust/grey.ts';
import { greyRaster, rawInput, sourceRaster, type SourceRaster } from '../src/robust/raster.ts';
import { IMAGE_FORMATS, type ImageFormat } from '../src/media-store/formats.ts';

type Format = ImageFormat;

const MAX_PIXELS = 100_000_000;

// libvips keeps the results of recent operations (up to 50 MB and 100 operations, process-wide) in
// case the same input comes again. Here it never does: every task is another file. The cache only
// held memory (issue 28: server RSS under the page-view load).
sharp.cache(false);
// One libvips thread per task: the pool already runs one task per core, so libvips' own threads
// (a pool per core in each worker) added no throughput, only threads and their malloc arenas.
sharp.concurrency(1);

const TYPES: Record<Format, { mime: string; ext: string }> = IMAGE_FORMATS;

const invalid = (message: string) => new Error(INVALID_PREFIX + message);

const ascii = (buf: Buffer, start: number, end: number) => buf.toString('latin1', start, end);

/**
 * Format from magic bytes. Only bytes on this allow-list ever reach sharp, so libvips never gets
 * the chance to render SVG (external references, CPU bombs), PDF, TIFF and the like.
 * AVIF here only means "ISO-BMFF with an avif brand"; the codec is confirmed from sharp's metadata.
 */
function sniff(buf: Buffer): Format | { other: string } {
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'jpeg';
  if (buf.length >= 8 && buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  const head6 = ascii(buf, 0, 6);
  if (head6 === 'GIF87a' || head6 === 'GIF89a') return 'gif';
  if (ascii(buf, 0, 4) === 'RIFF' && ascii(buf, 8, 12) === 'WEBP') return 'webp';
  if (ascii(buf, 4, 8) === 'ftyp') {
    const boxEnd = Math.min(buf.readUInt32BE(0), buf.length, 256);
    const brands: string[] = [];
    for (let i = 8; i + 4 <= boxEnd; i += 4) if (i !== 12) brands.push(ascii(buf, i, i + 4)); // skip minor version
    if (brands.includes('avif') || brands.includes('avis')) return 'avif';
    return { other: brands[0]?.trim() || 'iso-bmff' };
  }
  // Only to make the rejection message helpful.
  const text = ascii(buf, 0, 512).trimStart().toLowerCase();
  if (text.startsWith('<svg') || (text.startsWith('<?xml') && text.includes('<svg'))) return { other: 'svg' };
  if (text.startsWith('%pdf')) return { other: 'pdf' };
  if (head6.startsWith('II*\0') || head6.startsWith('MM\0*')) return { other: 'tiff' };
  if (head6.startsWith('BM')) return { other: 'bmp' };
  return { other: 'unrecognised' };
}

/** sharp/libvips messages for bad input, e.g. "VipsJpeg: premature end of JPEG image". */
function decodeFailure(err: unknown): Error {
  const msg = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(msg)) return invalid(`image exceeds ${MAX_PIXELS / 1_000_000} megapixels`);
  return invalid(`image is corrupt or truncated (${msg.split('\n')[0]})`);
}

export default async function analyse({ path, dihedral }: AnalyseRequest): Promise<ImageInfo> {
  // One read: the bytes that pass the magic check are the bytes sharp decodes (no swap in between).
  const buf = await readFile(path);
  if (buf.length === 0) throw invalid('file is empty');
  const sniffed = sniff(buf);
  if (typeof sniffed !== 'string') throw invalid(`not an accepted image format (${sniffed.other})`);

  const options: SharpOptions = {
    // Header dimensions are checked before any pixel is decoded, so bombs are refused cheaply.
    limitInputPixels: MAX_PIXELS,
    // Strictest level: truncated files and decoder warnings (corrupt data) fail instead of hashing garbage.
    failOn: 'warning',
    // The stored hashes were taken after EXIF orientation (sharp-phash calls .rotate()).
    autoOrient: true,
  };

  let meta: Metadata;
  try {
    meta = await sharp(buf, options).metadata();
  } catch (err) {
    throw decodeFailure(err);
  }
  const format: Format | undefined =
    meta.format === 'heif' ? (meta.compression === 'av1' ? 'avif' : undefined) : (meta.format as Format);
  if (format !== sniffed)
    throw invalid(
      `not an accepted image format (${meta.format === 'heif' ? (meta.compression ?? 'heif') : meta.format})`,
    );
  const { width, height } = meta.autoOrient; // as displayed, i.e. after EXIF orientation
  if (!width || !height) throw invalid('image has no dimensions');
  if (width * height > MAX_PIXELS)
    throw invalid(`image exceeds ${MAX_PIXELS / 1_000_000} megapixels (${width}x${height})`);

  let grey: Buffer;
  try {
    // sharp decodes only the first page by default, so animations hash their first frame.
    grey = await sharp(buf, options).greyscale().resize(32, 32, { fit: 'fill' }).raw().toBuffer();
  } catch (err) {
    throw decodeFailure(err);
  }
  // b-w drops alpha, so this is one band; guard anyway rather than hash interleaved channels.
  if (grey.length !== 32 * 32) throw new Error(`unexpected greyscale buffer of ${grey.length} bytes`);

  const info: ImageInfo = { format, ...TYPES[format], width, height, pages: meta.pages ?? 1, hash: dctHash(grey) };
  if (dihedral) info.dihedral = dihedralHashes(grey, dctHash);
  return info;
}

const inside = { fit: 'inside', withoutEnlargement: true } as const;
/** Thumbnails and the descriptor read damaged images too ('none'): the bytes already passed `analyse`. */
const LENIENT: SharpOptions = { limitInputPixels: MAX_PIXELS, failOn: 'none', autoOrient: true };

async function descriptorOf(source: SourceRaster): Promise<RobustResult> {
  const g = await greyRaster(source);
  if (!g) return UNREADABLE;
  const d = robustDescriptor(g);
  return { quality: d.quality, hashes: d.hashes, cells: d.cells };
}

const webp = (image: Sharp, path: string) =>
  // Effort 0, not the default 4: thumbnails are most of an upload's CPU time, and on a 1-MP JPEG
  // both sizes cost about 44 ms of CPU at effort 0 against 70 at effort 2 and 110 at 4, for files
  // of about the same size (bench/notes/code-figures.md).
  image.webp({ quality: 80, effort: 0 }).toFile(path);

/**
 * Named piscina task (`pool.run(data, { name: 'thumbnails' })`): WebP thumbnails of an accepted
 * image, and with `descriptor` its robust descriptor. Never upscaled; an animation gives its first
 * frame (sharp reads only page 0 unless told otherwise); EXIF orientation applied, as for the hash.
 * The DESCRIPTOR_SOURCE-px thumbnail is encoded from the source raster, so the descriptor shares its
 * decode; each other size decodes on its own (libvips shrinks a JPEG on load for its size, which
 * costs less than resampling one large raster: bench/robust/one-decode.ts).
 */
export async function thumbnails({ path, outputs, descriptor }: ThumbnailRequest): Promise<ThumbnailResult> {
  const buf = await readFile(path);
  try {
    const source = sharp(buf, LENIENT);
    const shared = outputs.filter((o) => o.size === DESCRIPTOR_SOURCE);
    const others = outputs.filter((o) => o.size !== DESCRIPTOR_SOURCE);
    const made = others.map(async (o) => {
      const info = await webp(source.clone().resize(o.size, o.size, inside), o.path);
      return { size: o.size, width: info.width, height: info.height };
    });
    let robust: Promise<RobustResult> | undefined;
    if (shared.length > 0 || descriptor) {
      const raster = sourceRaster(source.clone());
      for (const o of shared)
        made.push(
          raster.then(async (r: SourceRaster) => {
            const info = await webp(sharp(r.data, rawInput(r)), o.path);
            return { size: o.size, width: info.width, height: info.height };
          }),
        );
      if (descriptor) robust = raster.then(descriptorOf).catch(() => UNREADABLE);
    }
    return { made: await Promise.all(made), ...(robust ? { descriptor: await robust } : {}) };
  } catch (err) {
    throw decodeFailure(err);
  }
}

/**
 * Named task `robust` (docs/decisions.md §16): the robust descriptor of an accepted image on its own (the
 * backfill, `similar?robust=1` on an uploaded file); a new post's comes with its thumbnails. An image
 * that no longer decodes is answered as unreadable rather than thrown: the caller stores that, so
 * the backfill does not retry it forever.
 */
export async function robust({ path }: RobustRequest): Promise<RobustResult> {
  const buf = await readFile(path);
  try {
    return await descriptorOf(await sourceRaster(sharp(buf, LENIENT)));
  } catch {
    return UNREADABLE;
  }
}
