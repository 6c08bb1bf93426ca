import { rm, stat, writeFile } from 'node:fs/promises';
import sharp from 'sharp';
import { AppError } from '../errors.ts';
import type { FfmpegTools } from './binaries.ts';
import { FrameReader, type MovingPictureHashes } from './frames.ts';
import { type MediaInfo, type MediaLimits, MediaProber, polyglotOf, readHeadAndTail, signatureOf } from './probe.ts';
import { MediaRunner, type RunnerLimits } from './runner.ts';

/** A moving picture as an upload reads it: what it is, and its poster and spread frames' hashes. */
export interface MovingRead {
  info: MediaInfo;
  hashes: MovingPictureHashes;
}

/** What the poster frame is cut from: a stored post's facts (docs/decisions.md §21). */
export interface PosterSource {
  mime: string;
  width: number;
  height: number;
  duration: number | null;
  frames: number | null;
}

/** A PNG that announces an animation (`acTL` before the first `IDAT`) is an APNG candidate. */
function apngCandidate(head: Buffer): boolean {
  const actl = head.indexOf('acTL', 8, 'latin1');
  const idat = head.indexOf('IDAT', 8, 'latin1');
  return actl > 0 && (idat < 0 || actl < idat);
}

/** A WebP whose extended header (VP8X) sets the animation flag. */
const animatedWebp = (head: Buffer): boolean =>
  head.subarray(12, 16).toString('latin1') === 'VP8X' && ((head[20] ?? 0) & 0x02) !== 0;

/**
 * The one entry point uploads (and `imgpost import`) read a file through (docs/decisions.md §21):
 * refuses polyglots, tells still images (left to the still-image path, undefined) from moving
 * pictures, and reads a moving picture's facts and frame hashes, each ffmpeg run bounded.
 */
export class MovingPictures {
  readonly prober: MediaProber;
  readonly frames: FrameReader;

  constructor(
    readonly tools: FfmpegTools,
    limits: MediaLimits,
    runner: RunnerLimits,
    /**
     * §4's hash of a still picture file (the hash worker's): the poster's hash is the one a still
     * image of that frame gets, so a frame uploaded alone is compared in the same terms
     */
    private readonly stillHash: (file: string) => Promise<string>,
  ) {
    const run = new MediaRunner(runner);
    this.prober = new MediaProber(run, tools, limits);
    this.frames = new FrameReader(run, tools);
  }

  /**
   * Undefined for a still image (or a file that is no picture at all: the still-image path names
   * what is wrong); a moving picture's facts and hashes; a refusal (400) for anything hostile.
   */
  async read(file: string, declared = ''): Promise<MovingRead | undefined> {
    const { size } = await stat(file);
    if (size === 0) return undefined;
    const { head, tail } = await readHeadAndTail(file, size);
    // No signature imgpost takes: the still-image path refuses it, naming the format it found; a
    // file declared a video is refused by the prober, which names what it is.
    if (!signatureOf(head)) {
      if (declared.startsWith('video/')) await this.prober.probe(file);
      return undefined;
    }
    const polyglot = polyglotOf(head, tail);
    if (polyglot) throw new AppError('unsupported_media', `the file is also ${polyglot}, refused`);
    if (!(await this.maybeMoving(file, head))) return undefined;
    const info = await this.prober.probe(file);
    if (info.kind === 'image') return undefined;
    const hashes = await this.frames.hashes(file, info);
    const poster = `${file}.poster.png`;
    try {
      await writeFile(poster, await this.frames.posterPng(file, info, hashes.poster.at));
      return { info, hashes: { ...hashes, poster: { ...hashes.poster, hash: await this.stillHash(poster) } } };
    } finally {
      await rm(poster, { force: true });
    }
  }

  /** Whether the file's signature is a video container's (its own byte limit, MAX_VIDEO_BYTES). */
  async isVideo(file: string): Promise<boolean> {
    const { size } = await stat(file);
    const { head } = await readHeadAndTail(file, size);
    const sig = signatureOf(head);
    return sig === 'webm' || sig === 'mp4';
  }

  /** Whether the file's signature says video, or says an image format whose header announces frames. */
  private async maybeMoving(file: string, head: Buffer): Promise<boolean> {
    const sig = signatureOf(head);
    if (sig === 'webm' || sig === 'mp4') return true;
    if (sig === 'png') return apngCandidate(head);
    if (sig === 'webp') return animatedWebp(head);
    if (sig === 'gif') {
      const meta = await sharp(file, { animated: true })
        .metadata()
        .catch(() => undefined);
      return (meta?.pages ?? 1) > 1;
    }
    return false;
  }

  /** The poster frame of a stored moving picture as a PNG (the thumbnails are made of it). */
  posterPng(file: string, source: PosterSource, at: number): Promise<Buffer> {
    const info: MediaInfo = {
      kind: 'video',
      mime: source.mime,
      ext: '',
      width: source.width,
      height: source.height,
      bytes: 0,
      duration: source.duration,
      frames: source.frames,
      hasAudio: false,
      decoder: source.mime === 'image/webp' ? 'sharp' : 'ffmpeg',
    };
    return this.frames.posterPng(file, info, at);
  }
}
