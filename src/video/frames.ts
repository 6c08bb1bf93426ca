import sharp from 'sharp';
import { AppError } from '../errors.ts';
import { hammingDistance } from '../hashing/hamming.ts';
import { dctHash } from '../hashing/phash.ts';
import type { FfmpegTools } from './binaries.ts';
import type { MediaInfo } from './probe.ts';
import type { MediaRunner } from './runner.ts';

/**
 * The poster frame and the frames spread over a moving picture's duration, each hashed with §4's
 * 64-bit hash (docs/decisions.md §21). The poster is chosen from the bytes' pictures only (the same
 * instant for every copy): the first frame at or after min(1 s, 10 %) that is neither black nor blank.
 */
export interface FrameHash {
  at: number;
  hash: string;
  /** black or flat: it says nothing about which clip this is */
  blank: boolean;
}

export interface MovingPictureHashes {
  poster: FrameHash;
  frames: FrameHash[];
}

export const SPREAD_FRAMES = 8;
/** A mean luma (0–255) at or below this, or a spread this small, is a blank frame. */
const BLANK_MEAN = 24;
const BLANK_SPREAD = 6;
/** §4's near-duplicate threshold (a hash within fewer bits is the same picture). */
export const POSTER_THRESHOLD = 4;
/** Spread frames of a re-encoded copy drift more than a still's hash: a frame matches within this. */
const FRAME_THRESHOLD = 10;
/** The share of the informative spread frames that must match. */
const MOST = 0.75;

const SMALL_SIDE = 128;

function grey32Stats(grey: Buffer): { mean: number; spread: number } {
  let sum = 0;
  for (const v of grey) sum += v;
  const mean = sum / grey.length;
  let sq = 0;
  for (const v of grey) sq += (v - mean) ** 2;
  return { mean, spread: Math.sqrt(sq / grey.length) };
}

async function hashGrey(grey: Buffer, width: number, height: number, at: number): Promise<FrameHash> {
  const small = await sharp(grey, { raw: { width, height, channels: 1 } })
    .greyscale()
    .resize(32, 32, { fit: 'fill' })
    .raw()
    .toBuffer();
  const { mean, spread } = grey32Stats(small);
  return { at, hash: dctHash(new Uint8Array(small)), blank: mean <= BLANK_MEAN || spread < BLANK_SPREAD };
}

/**
 * Where to seek for the frame shown at `at`: ffmpeg's input seek keeps the first frame that starts at
 * or after the instant, so it is asked for a little before the start of the frame shown then (at the
 * average frame length; an animation of three frames shows its first at 10 % of its duration).
 */
function seekTo(info: MediaInfo, at: number): number {
  if (!info.frames || !info.duration) return at;
  const length = info.duration / info.frames;
  const start = Math.floor(at / length + 1e-6) * length;
  return Math.max(0, start - length / 4);
}

export class FrameReader {
  constructor(
    private readonly runner: MediaRunner,
    readonly tools: FfmpegTools,
  ) {}

  /** The poster and the spread frames' hashes; a frame that cannot be decoded refuses the file. */
  async hashes(file: string, info: MediaInfo): Promise<MovingPictureHashes> {
    const duration = info.duration ?? 0;
    // No later than the last frame's start: a seek past it finds no frame (an animation of few frames).
    const last = info.frames ? duration * (1 - 1 / info.frames) : duration;
    const spreadAt = Array.from({ length: SPREAD_FRAMES }, (_, i) =>
      Math.min(last, (duration * (i + 0.5)) / SPREAD_FRAMES),
    );
    const start = Math.min(1, duration * 0.1);
    const [first, ...frames] = await this.frameHashes(file, info, [start, ...spreadAt]);
    const poster = [first, ...frames.filter((f) => f.at > start)].find((f) => !f.blank) ?? first;
    return { poster: poster as FrameHash, frames };
  }

  /** The poster frame as a PNG, for the thumbnails. */
  async posterPng(file: string, info: MediaInfo, at: number): Promise<Buffer> {
    if (info.decoder === 'sharp')
      return sharp(file, { page: this.page(info, at) })
        .png()
        .toBuffer();
    const { stdout } = await this.runner.run(this.tools.ffmpeg, [
      ...this.inputArgs(file, seekTo(info, at)),
      ...['-frames:v', '1', '-f', 'image2pipe', '-c:v', 'png', 'pipe:1'],
    ]);
    if (stdout.length === 0) throw new AppError('unsupported_media', 'a frame of the file cannot be decoded');
    return stdout;
  }

  private page(info: MediaInfo, at: number): number {
    const frames = info.frames ?? 1;
    const duration = info.duration ?? 1;
    return Math.min(frames - 1, Math.max(0, Math.floor((at / duration) * frames)));
  }

  private inputArgs(file: string, at: number): string[] {
    return ['-v', 'error', '-nostdin', '-threads', '1', '-ss', at.toFixed(3), '-i', file];
  }

  /** Frames at the given instants: one ffmpeg run with an input seeked to each, their frames concatenated. */
  private async frameHashes(file: string, info: MediaInfo, times: number[]): Promise<FrameHash[]> {
    if (info.decoder === 'sharp') {
      return Promise.all(
        times.map(async (at) => {
          const { data, info: got } = await sharp(file, { page: this.page(info, at) })
            .greyscale()
            .raw()
            .toBuffer({ resolveWithObject: true });
          return hashGrey(data, got.width, got.height, at);
        }),
      );
    }
    const scale = Math.min(1, SMALL_SIDE / Math.max(info.width, info.height));
    const width = Math.max(2, Math.round(info.width * scale));
    const height = Math.max(2, Math.round(info.height * scale));
    // One decoding thread per input, and each input read for a few frames only (`-t`): the concat
    // takes its inputs in turn, and inputs read on meanwhile would queue decoded pictures past the
    // run's address-space cap on a long clip.
    const span = info.frames && info.duration ? Math.max(0.05, (3 * info.duration) / info.frames) : 1;
    const inputs = times.flatMap((at) => [
      ...['-threads', '1', '-ss', seekTo(info, at).toFixed(3), '-t', span.toFixed(3), '-i', file],
    ]);
    const picks = times.map(
      (_, i) => `[${i}:v:0]trim=end_frame=1,scale=${width}:${height}:flags=area,format=gray,setpts=PTS-STARTPTS[f${i}]`,
    );
    const joined = `${times.map((_, i) => `[f${i}]`).join('')}concat=n=${times.length}:v=1:a=0,setpts=N[out]`;
    const frameBytes = width * height;
    const { stdout } = await this.runner.run(
      this.tools.ffmpeg,
      [
        ...['-v', 'error', '-nostdin', '-filter_complex_threads', '1', ...inputs],
        ...['-filter_complex', `${picks.join(';')};${joined}`, '-map', '[out]'],
        // one output frame per picked frame: no frames repeated to fill the gaps between their instants
        ...['-vsync', '0', '-f', 'rawvideo', 'pipe:1'],
      ],
      frameBytes * (times.length + 1),
    );
    if (stdout.length !== frameBytes * times.length)
      throw new AppError('unsupported_media', 'frames of the file cannot be decoded (truncated or corrupt)');
    return Promise.all(
      times.map((at, i) => hashGrey(stdout.subarray(i * frameBytes, (i + 1) * frameBytes), width, height, at)),
    );
  }
}

/**
 * §21's duplicate rule: a copy when the posters are within §4's threshold and most of the spread
 * frames that show something (neither black nor blank in both) match, each against the frame at the
 * same place or a neighbour. Clips that share only black frames or a title card do not.
 */
export function sameMovingPicture(a: MovingPictureHashes, b: MovingPictureHashes): boolean {
  if (hammingDistance(a.poster.hash, b.poster.hash) >= POSTER_THRESHOLD) return false;
  let informative = 0;
  let matched = 0;
  a.frames.forEach((fa, i) => {
    const fb = b.frames[i];
    if (!fb || fa.blank || fb.blank) return;
    informative++;
    const near = [b.frames[i - 1], fb, b.frames[i + 1]].filter((f): f is FrameHash => f !== undefined && !f.blank);
    if (near.some((f) => hammingDistance(fa.hash, f.hash) <= FRAME_THRESHOLD)) matched++;
  });
  return informative > 0 && matched >= Math.ceil(informative * MOST);
}

/**
 * The `frames` match of `similar` (docs/decisions.md §21): the fewest differing bits between a frame
 * of the query (a still's own hash, or a moving picture's poster and spread frames) and the poster or a
 * spread frame of a stored moving picture, blank frames left out; undefined beyond FRAME_THRESHOLD.
 */
export function framesDistance(query: readonly FrameHash[], stored: MovingPictureHashes): number | undefined {
  let best = Number.POSITIVE_INFINITY;
  for (const q of query) {
    if (q.blank) continue;
    for (const s of [stored.poster, ...stored.frames])
      if (!s.blank) best = Math.min(best, hammingDistance(q.hash, s.hash));
  }
  return best <= FRAME_THRESHOLD ? best : undefined;
}
