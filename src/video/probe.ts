import { open, stat } from 'node:fs/promises';
import sharp from 'sharp';
import { AppError, invalid } from '../errors.ts';
import type { FfmpegTools } from './binaries.ts';
import type { MediaRunner } from './runner.ts';

/**
 * What an uploaded file is, read from its bytes (docs/decisions.md §21): its signature, then ffprobe's
 * account of its container and streams. The declared type and the file's name decide nothing.
 */
export type MediaKind = 'image' | 'animation' | 'video';

export interface MediaInfo {
  kind: MediaKind;
  mime: string;
  /** the stored file's extension, as the Danbooru API names it */
  ext: string;
  width: number;
  height: number;
  bytes: number;
  /** seconds; null for a still image */
  duration: number | null;
  /** null for a still image, or where the container does not say */
  frames: number | null;
  hasAudio: boolean;
  /** how frames are read: ffmpeg, or sharp for animated WebP (the ffmpeg of the npm builds cannot) */
  decoder: 'ffmpeg' | 'sharp';
}

export interface MediaLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
  maxVideoSeconds: number;
  maxVideoSide: number;
}

export type Signature = 'webm' | 'mp4' | 'gif' | 'png' | 'webp' | 'jpeg' | 'avif';

const VIDEO_CODECS: Record<'webm' | 'mp4', { video: string[]; audio: string[]; mime: string }> = {
  webm: { video: ['vp8', 'vp9', 'av1'], audio: ['vorbis', 'opus'], mime: 'video/webm' },
  mp4: { video: ['h264', 'av1'], audio: ['aac', 'mp3', 'opus'], mime: 'video/mp4' },
};

/** A pixel budget over the whole clip: beyond it decoding is refused rather than tried. */
const MAX_TOTAL_PIXELS = 600 * 7680 * 4320;

const unsupported = (message: string) => new AppError('unsupported_media', message);

export async function readHeadAndTail(file: string, size: number): Promise<{ head: Buffer; tail: Buffer }> {
  const fh = await open(file, 'r');
  try {
    const head = Buffer.alloc(Math.min(size, 4096));
    await fh.read(head, 0, head.length, 0);
    const tailLength = Math.min(size, 65_536);
    const tail = Buffer.alloc(tailLength);
    await fh.read(tail, 0, tailLength, size - tailLength);
    return { head, tail };
  } finally {
    await fh.close();
  }
}

export function signatureOf(head: Buffer): Signature | undefined {
  if (head.subarray(0, 4).equals(Buffer.from([0x1a, 0x45, 0xdf, 0xa3]))) return 'webm';
  if (head.subarray(4, 8).toString('latin1') === 'ftyp') {
    const brand = head.subarray(8, 12).toString('latin1');
    return brand === 'avif' || brand === 'avis' ? 'avif' : 'mp4';
  }
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'webp';
  if (head.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpeg';
  return undefined;
}

/** A file that is also a page or an archive (a polyglot) is refused whatever else it is. */
export function polyglotOf(head: Buffer, tail: Buffer): string | undefined {
  const text = head.toString('latin1').toLowerCase();
  if (/<(html|script|svg|body|iframe|!doctype)/.test(text)) return 'HTML';
  if (hasZipEnd(tail)) return 'a zip archive';
  return undefined;
}

const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);
const ZIP_DIRECTORY_ENTRY = Buffer.from([0x50, 0x4b, 0x01, 0x02]);
/** The end record's fixed part; a comment of up to 64 KiB may follow it. */
const ZIP_END_LENGTH = 22;

/**
 * Whether the tail holds a zip's end record that a zip reader would take: the four signature
 * bytes alone turn up by chance in the compressed data of some pictures, and such a photograph
 * must not be refused. A record counts when the central directory it names is there (its first
 * entry's signature right before the record, as zip tools write it, even behind other bytes), when
 * it names an empty archive, or, for a directory longer than the tail, when the record and its
 * comment end exactly where the file does.
 */
function hasZipEnd(tail: Buffer): boolean {
  for (let at = tail.lastIndexOf(ZIP_END); at >= 0; at = at > 0 ? tail.lastIndexOf(ZIP_END, at - 1) : -1) {
    if (at + ZIP_END_LENGTH > tail.length) continue;
    const entries = tail.readUInt16LE(at + 10);
    const directoryBytes = tail.readUInt32LE(at + 12);
    const commentBytes = tail.readUInt16LE(at + 20);
    if (entries === 0 && directoryBytes === 0) return true;
    const directory = at - directoryBytes;
    if (directory >= 0) {
      if (tail.subarray(directory, directory + 4).equals(ZIP_DIRECTORY_ENTRY)) return true;
    } else if (at + ZIP_END_LENGTH + commentBytes === tail.length) return true;
  }
  return false;
}

interface ProbeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  nb_frames?: string;
  nb_read_packets?: string;
  duration?: string;
  avg_frame_rate?: string;
  disposition?: { attached_pic?: number };
}

interface ProbeJson {
  streams?: ProbeStream[];
  format?: { format_name?: string; duration?: string };
}

const seconds = (s: string | undefined): number | undefined => {
  const n = s === undefined ? Number.NaN : Number(s);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/** A duration from the frame count and the average rate, where the container gives none (APNG). */
function byRate(frames: number, rate: string | undefined): number | undefined {
  const [num, den] = (rate ?? '').split('/').map(Number);
  if (!num || !den || !Number.isFinite(frames) || frames <= 0) return undefined;
  return frames / (num / den);
}

export class MediaProber {
  constructor(
    private readonly runner: MediaRunner,
    readonly tools: FfmpegTools,
    private readonly limits: MediaLimits,
  ) {}

  async probe(file: string): Promise<MediaInfo> {
    const { size } = await stat(file);
    if (size === 0) throw unsupported('the file is empty');
    const { head, tail } = await readHeadAndTail(file, size);
    const polyglot = polyglotOf(head, tail);
    if (polyglot) throw unsupported(`the file is also ${polyglot}, refused`);
    const sig = signatureOf(head);
    if (!sig) throw unsupported('not a picture or video imgpost takes (unknown file signature)');
    if (sig === 'jpeg' || sig === 'avif') return this.still(file, size, sig);
    if (sig === 'webp') return this.webp(file, size);
    return this.ffprobe(file, size, sig);
  }

  private async still(file: string, size: number, sig: Signature): Promise<MediaInfo> {
    const meta = await sharp(file)
      .metadata()
      .catch(() => undefined);
    if (!meta?.width || !meta.height) throw unsupported(`a ${sig} file that cannot be read`);
    return this.checked({
      kind: 'image',
      mime: `image/${sig}`,
      ext: sig === 'jpeg' ? 'jpg' : sig,
      width: meta.width,
      height: meta.height,
      bytes: size,
      duration: null,
      frames: null,
      hasAudio: false,
      decoder: 'sharp',
    });
  }

  private async webp(file: string, size: number): Promise<MediaInfo> {
    const meta = await sharp(file, { animated: true })
      .metadata()
      .catch(() => undefined);
    if (!meta?.width || !meta.height) throw unsupported('a WebP file that cannot be read');
    const pages = meta.pages ?? 1;
    if (pages <= 1) return this.still(file, size, 'webp');
    const delays = meta.delay ?? [];
    const duration = delays.reduce((sum, d) => sum + (d > 0 ? d : 100), 0) / 1000;
    return this.checked({
      kind: 'animation',
      mime: 'image/webp',
      ext: 'webp',
      width: meta.width,
      height: meta.pageHeight ?? meta.height / pages,
      bytes: size,
      duration,
      frames: pages,
      hasAudio: false,
      decoder: 'sharp',
    });
  }

  private async ffprobe(file: string, size: number, sig: 'webm' | 'mp4' | 'gif' | 'png'): Promise<MediaInfo> {
    const args = ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-count_packets', file];
    const { code, stdout } = await this.runner.run(this.tools.ffprobe, args, 4 * 1024 * 1024);
    let probed: ProbeJson;
    try {
      probed = JSON.parse(stdout.toString('utf8')) as ProbeJson;
    } catch {
      probed = {};
    }
    if (code !== 0 || !probed.format) throw unsupported(`a ${sig} file that cannot be read (truncated or corrupt)`);
    const streams = probed.streams ?? [];
    const videos = streams.filter((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
    const audios = streams.filter((s) => s.codec_type === 'audio');
    if (videos.length === 0) throw unsupported(`a ${sig} file without pictures`);
    if (videos.length > 1) throw unsupported(`${videos.length} video streams (at most one is taken)`);
    const video = videos[0] as ProbeStream;
    const format = probed.format.format_name ?? '';
    const frames = Number(video.nb_frames ?? video.nb_read_packets ?? Number.NaN);
    const duration = seconds(probed.format.duration) ?? seconds(video.duration) ?? byRate(frames, video.avg_frame_rate);
    const base = {
      width: video.width ?? 0,
      height: video.height ?? 0,
      bytes: size,
      frames: Number.isFinite(frames) && frames > 0 ? frames : null,
      decoder: 'ffmpeg' as const,
    };
    if (sig === 'gif' || sig === 'png') {
      const animated = sig === 'gif' ? format === 'gif' : format === 'apng';
      if (!animated || (base.frames ?? 1) <= 1)
        return this.still(file, size, sig).then((i) => ({ ...i, mime: `image/${sig}` }));
      return this.checked({
        ...base,
        kind: 'animation',
        mime: `image/${sig}`,
        ext: sig,
        duration: duration ?? null,
        hasAudio: false,
      });
    }
    const allowed = VIDEO_CODECS[sig];
    const isContainer =
      sig === 'webm' ? format.includes('webm') || format.includes('matroska') : format.includes('mp4');
    if (!isContainer) throw unsupported(`a container imgpost does not take (${format || 'unknown'})`);
    if (!allowed.video.includes(video.codec_name ?? ''))
      throw unsupported(`video codec ${video.codec_name ?? 'unknown'} in ${sig} (taken: ${allowed.video.join(', ')})`);
    for (const a of audios) {
      if (!allowed.audio.includes(a.codec_name ?? ''))
        throw unsupported(`audio codec ${a.codec_name ?? 'unknown'} in ${sig} (taken: ${allowed.audio.join(', ')})`);
    }
    if (duration === undefined || duration <= 0) throw unsupported(`a ${sig} file without a duration`);
    return this.checked({
      ...base,
      kind: 'video',
      mime: allowed.mime,
      ext: sig,
      duration,
      hasAudio: audios.length > 0,
    });
  }

  private checked(info: MediaInfo): MediaInfo {
    const { width, height } = info;
    if (!(width > 0 && height > 0)) throw unsupported('a picture without dimensions');
    if (info.kind === 'image') return info;
    if (width > this.limits.maxVideoSide || height > this.limits.maxVideoSide)
      throw unsupported(
        `${width}×${height} pixels: each side must be at most MAX_VIDEO_SIDE (${this.limits.maxVideoSide})`,
      );
    const bytesLimit = info.kind === 'video' ? this.limits.maxVideoBytes : this.limits.maxImageBytes;
    const limitName = info.kind === 'video' ? 'MAX_VIDEO_BYTES' : 'MAX_IMAGE_BYTES';
    // §4's size-limit body, naming the limit
    if (info.bytes >= bytesLimit)
      throw invalid(
        ['image'],
        `image must be smaller than ${bytesLimit} bytes (${limitName})`,
        'too_big',
        `< ${bytesLimit} bytes`,
        `${info.bytes} bytes`,
      );
    const duration = info.duration ?? 0;
    if (duration > this.limits.maxVideoSeconds)
      throw unsupported(`${Math.round(duration)} s long: at most MAX_VIDEO_SECONDS (${this.limits.maxVideoSeconds})`);
    const frames = info.frames ?? duration * 60;
    if (frames * width * height > MAX_TOTAL_PIXELS)
      throw new AppError('media_too_complex', 'the media is too complex: too many pixels to decode');
    return info;
  }
}
