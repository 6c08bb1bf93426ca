/**
 * Section `video-uploads` of `npm run bench` (issue 47, docs/decisions.md §21): video uploads/s at 4
 * clients against still-image uploads/s at 4 clients on the same server process, in the same run.
 *  - ours: 4 clients POST WebM clips (VP8, 854×480, 24 frames a second, 3 s, no sound) to /api/post/,
 *    each clip uploaded once and none a duplicate of another (none forced): each made here by ffmpeg
 *    panning over a photo-like picture of its own (bench/lib/images.ts), so posters and spread frames
 *    hash apart;
 *  - the anchor: 4 clients POST 1-megapixel JPEGs of their own to the same server, likewise each once.
 * The anchor is the still upload rather than ffprobe + ffmpeg alone: the question is what a video costs
 * the service beside what it already takes (the same HTTP, storage, unit of work, index and thumbnail
 * path), while bench/video.ts already sets the reading of a clip against its floor.
 * The two take turns window by window (a window is a fixed number of uploads, each file used once).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { locateFfmpeg } from '../src/video/binaries.ts';
import { tempDir } from './lib/env.ts';
import { check, closedLoop, type LoadResult } from './lib/http-load.ts';
import { generateImages } from './lib/images.ts';
import { HttpError } from './lib/requests.ts';
import type { BenchSection, SectionRow } from './lib/section.ts';
import { standalone } from './lib/standalone.ts';
import { fmt, median, nowMs } from './lib/stats.ts';
import { takeTurns } from './lib/turns.ts';
import { sectionParams } from './params.ts';

const run = promisify(execFile);
const CLIENTS = 4;
const CLIP = { width: 854, height: 480, fps: 24, seconds: 3 };

interface Kind {
  name: 'video' | 'still';
  files: string[];
  type: string;
  windows: LoadResult[];
  used: number;
}

/** One WebM per picture: a 854×480 window panning over the 1000×1000 picture for CLIP.seconds. */
async function makeClips(ffmpeg: string, pictures: string[], dir: string): Promise<string[]> {
  const out = pictures.map((_, i) => path.join(dir, `clip-${i}.webm`));
  let next = 0;
  // Two encoders at a time: the machine has two cores.
  const worker = async () => {
    while (next < pictures.length) {
      const i = next++;
      await run(ffmpeg, [
        ...['-v', 'error', '-y', '-loop', '1', '-framerate', String(CLIP.fps), '-i', pictures[i]],
        ...['-t', String(CLIP.seconds), '-vf', `crop=${CLIP.width}:${CLIP.height}:x='t*40':y='t*20',format=yuv420p`],
        ...['-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '16', '-b:v', '1M', out[i]],
      ]);
    }
  };
  await Promise.all([worker(), worker()]);
  return out;
}

export const section: BenchSection = {
  name: 'video-uploads',
  summary:
    'video uploads/s at 4 clients (3-s 480p WebM clips) against still-image uploads/s on the same server (issue 47)',
  async run({ quick, log }) {
    const { perWindow, rounds } = sectionParams(quick).videoUploads;
    const total = perWindow * (rounds + 1); // one warm-up window each
    const tools = locateFfmpeg({}, process.env.PATH);
    const dir = tempDir('video-uploads-media');
    const t0 = nowMs();
    const stills = (await generateImages(path.join(dir, 'stills'), total, 0, 7000)).map((i) => i.path);
    const frames = (await generateImages(path.join(dir, 'frames'), total, 0, 47_000)).map((i) => i.path);
    const clips = await makeClips(tools.ffmpeg, frames, dir);
    const clipBytes = median(clips.map((f) => fs.statSync(f).size));
    const stillBytes = median(stills.map((f) => fs.statSync(f).size));
    const madeS = (nowMs() - t0) / 1000;
    log(
      `${total} clips (median ${fmt(clipBytes / 1024)} KiB) and ${total} JPEGs (median ${fmt(stillBytes / 1024)} KiB) made in ${fmt(madeS)} s`,
    );

    let out: Awaited<ReturnType<BenchSection['run']>> | undefined;
    await standalone('video-uploads', false, async (s) => {
      const url = await s.startServer();
      const user = await s.services.accounts.createUser({
        name: 'bench_video',
        password: 'bench password 123',
        permission: 6,
      });
      const kinds: Kind[] = [
        { name: 'video', files: clips, type: 'video/webm', windows: [], used: 0 },
        { name: 'still', files: stills, type: 'image/jpeg', windows: [], used: 0 },
      ];
      const upload = async (k: Kind, file: string, i: number) => {
        const form = new FormData();
        form.append('image', new Blob([fs.readFileSync(file)], { type: k.type }), path.basename(file));
        form.append(
          'metadata',
          new Blob([JSON.stringify({ text: `${k.name} bench ${i}`, tags: ['bench'] })], { type: 'application/json' }),
        );
        const res = await fetch(`${url}/api/post/`, {
          method: 'POST',
          headers: { 'X-Access-Key': user.accessKey },
          body: form,
        });
        const text = await res.text();
        if (res.status !== 201)
          throw new HttpError(`${k.name} upload ${path.basename(file)}: ${res.status} ${text.slice(0, 200)}`);
      };
      const window = async (k: Kind) => {
        const files = k.files.slice(k.used, k.used + perWindow);
        k.used += perWindow;
        return check(
          await closedLoop({
            concurrency: CLIENTS,
            durationMs: 600_000,
            maxRequests: files.length,
            task: (i) => upload(k, files[i], i),
          }),
          `${k.name} uploads`,
        );
      };
      for (const k of kinds) await window(k); // warm-up
      await takeTurns(rounds, kinds, [
        async (k, round) => {
          const r = await window(k);
          k.windows.push(r);
          log(`round ${round} ${k.name}: ${r.requests} uploads in ${fmt(r.ms / 1000)} s, ${fmt(r.rps)}/s`);
        },
      ]);
      const stored = s.services.db
        .prepare("SELECT count(*) FROM posts WHERE media_kind = 'video'")
        .pluck()
        .get() as number;
      const rate = (k: Kind) =>
        (k.windows.reduce((a, r) => a + r.requests, 0) / k.windows.reduce((a, r) => a + r.ms, 0)) * 1000;
      const p50 = (k: Kind) => median(k.windows.flatMap((r) => r.latencies));
      const [video, still] = kinds;
      const row: SectionRow = {
        figure: 'Video uploads/s at 4 clients (`POST /api/post/`, a 3-s 854×480 VP8 WebM each, none a duplicate)',
        corpus: 'only what the run uploads',
        ours: `${fmt(rate(video))} uploads/s (p50 ${fmt(p50(video))} ms a request)`,
        anchor: `1-MP JPEG uploads at 4 clients on the same server: ${fmt(rate(still))} uploads/s (p50 ${fmt(p50(still))} ms)`,
        ratio: `${fmt(rate(video) / rate(still))}× the still uploads/s`,
        goal: 'none stated (report)',
        met: 'none',
      };
      out = {
        title: 'Moving pictures: video uploads (issue 47)',
        rows: [row],
        notes: [
          `Media made at the start of the run by ffmpeg and sharp (${fmt(madeS)} s): ${total} WebM clips (VP8 \`realtime\`, 1 Mb/s, ${CLIP.width}×${CLIP.height}, ${CLIP.fps} frames a second, ${CLIP.seconds} s, no sound; median ${fmt(clipBytes / 1024)} KiB), each a window panning over a photo-like picture of its own so that no two share a poster or frames, and ${total} 1-MP JPEGs (median ${fmt(stillBytes / 1024)} KiB). Every file is uploaded once, without \`force\`: each answer is a 201 (${stored} videos stored).`,
          `The anchor is still-image uploads at 4 clients on the same server process, not ffprobe + ffmpeg alone: this figure asks what a video costs the service beside what it already takes; the reading of a clip against its floor is bench/video.ts (notes/video.md).`,
          `A warm-up window of each kind, then ${rounds} rounds in which a window of ${perWindow} video uploads and one of ${perWindow} still uploads take turns; uploads/s is the uploads over the windows' time. The machine was shared with other sessions' benchmarks and tests: the ratio, measured in alternating windows, is the figure; the absolute rates are not.`,
        ],
        data: {
          clients: CLIENTS,
          clip: CLIP,
          clipBytes,
          stillBytes,
          perWindow,
          rounds,
          video: {
            rps: rate(video),
            p50: p50(video),
            windows: video.windows.map((r) => ({ requests: r.requests, ms: r.ms })),
          },
          still: {
            rps: rate(still),
            p50: p50(still),
            windows: still.windows.map((r) => ({ requests: r.requests, ms: r.ms })),
          },
        },
      };
    });
    fs.rmSync(dir, { recursive: true, force: true });
    return out!;
  },
};
