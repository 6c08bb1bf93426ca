import { inGroup, text, wholeNumber } from './define.ts';

/**
 * Moving pictures (docs/decisions.md §21): where ffmpeg and ffprobe are, the limits of a video, and the
 * bounds every run of them is held to (untrusted media are hostile input).
 */
const uploads = inGroup('uploads');

export const VIDEO_SETTINGS = {
  ffmpegPath: uploads({
    env: 'FFMPEG_PATH',
    type: text(),
    shownDefault: '`ffmpeg` on `PATH`, else the npm build',
    doc: 'the ffmpeg that decodes frames of animations and videos (a patched system build is preferred)',
  }),
  ffprobePath: uploads({
    env: 'FFPROBE_PATH',
    type: text(),
    shownDefault: '`ffprobe` on `PATH`, else the npm build',
    doc: 'the ffprobe that reads what an uploaded file is',
  }),
  maxVideoBytes: uploads({
    env: 'MAX_VIDEO_BYTES',
    type: wholeNumber(1024, 16 * 1024 ** 3),
    default: String(100 * 1024 * 1024),
    doc: 'a video must be smaller than this (100 MiB by default); still images and animations keep `UPLOAD_MAX_BYTES`',
  }),
  maxVideoSeconds: uploads({
    env: 'MAX_VIDEO_SECONDS',
    type: wholeNumber(1, 86_400),
    default: '600',
    doc: 'the longest video or animation accepted, in seconds',
  }),
  maxVideoSide: uploads({
    env: 'MAX_VIDEO_SIDE',
    type: wholeNumber(16, 65_535),
    default: '7680',
    doc: 'the most pixels either side of a video or animation may have',
  }),
  runTimeoutMs: uploads({
    env: 'MEDIA_RUN_TIMEOUT_MS',
    type: wholeNumber(100, 600_000),
    default: '20000',
    doc: 'how long one ffprobe or ffmpeg run may take before it is killed and the upload refused',
  }),
  runMemoryMb: uploads({
    env: 'MEDIA_RUN_MEMORY_MB',
    type: wholeNumber(64, 65_536),
    default: '1024',
    doc: 'the address space one ffprobe or ffmpeg run may have, in MiB',
  }),
  runsInFlight: uploads({
    env: 'MEDIA_RUNS_IN_FLIGHT',
    type: wholeNumber(1, 64),
    default: '2',
    doc: 'how many ffprobe and ffmpeg runs the process has at once (more wait their turn)',
  }),
} as const;
