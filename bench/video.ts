/**
 * Reading a moving picture (docs/decisions.md §21) against its floor, on a 30-s 720p clip made here by
 * ffmpeg (H.264 and a WebM VP8 copy, both with sound):
 *  - ours: `MovingPictures.read` as an upload runs it: the signature and polyglot checks, ffprobe
 *    (with its packet count), the poster and eight spread frames decoded in one ffmpeg run, the poster
 *    cut out as a picture and hashed by the hash worker;
 *  - the floor: ffprobe of the format and streams, then ffmpeg decoding the one poster frame to nothing,
 *    run alone: what any reader of the file must pay.
 * Both take turns, one read at a time (REPS rounds, after one warm-up of each); medians and p90 in ms.
 *
 *   npx tsx bench/video.ts [reps=10]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createHashPool } from '../src/hashing/pool.ts';
import { locateFfmpeg } from '../src/video/binaries.ts';
import { MovingPictures } from '../src/video/moving-pictures.ts';
import { headerOf, numberArg, parseCli, runIfMain } from './lib/cli.ts';
import { takeTurns } from './lib/turns.ts';
import { median, nowMs, percentile } from './lib/stats.ts';

const run = promisify(execFile);

export async function main(): Promise<void> {
  const { positionals } = parseCli({ usage: headerOf(import.meta.url), positionals: true });
  const reps = numberArg(positionals[0], 10);
  const tools = locateFfmpeg({}, process.env.PATH);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'imgpost-bench-video-'));
  const pool = createHashPool({ workers: 1 });
  try {
    const mp4 = path.join(dir, 'clip.mp4');
    const webm = path.join(dir, 'clip.webm');
    const made = nowMs();
    await run(tools.ffmpeg, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=1280x720:r=30:d=30', '-f', 'lavfi', '-i', 'sine=d=30'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', mp4],
    ]);
    await run(tools.ffmpeg, [
      ...['-v', 'error', '-y', '-i', mp4, '-c:v', 'libvpx', '-deadline', 'realtime', '-cpu-used', '16'],
      ...['-b:v', '2M', '-c:a', 'libopus', webm],
    ]);
    process.stderr.write(`clips made in ${((nowMs() - made) / 1000).toFixed(1)} s\n`);
    const pictures = new MovingPictures(
      tools,
      { maxImageBytes: 4 * 1024 ** 2, maxVideoBytes: 100 * 1024 ** 2, maxVideoSeconds: 600, maxVideoSide: 7680 },
      { timeoutMs: 60_000, memoryMb: 1024, inFlight: 2 },
      async (file) => (await pool.analyse(file)).hash,
    );
    const ours = async (file: string) => {
      if (!(await pictures.read(file))) throw new Error(`${file} read as a still`);
    };
    const floor = async (file: string) => {
      await run(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file]);
      await run(tools.ffmpeg, ['-v', 'error', '-ss', '1', '-i', file, '-frames:v', '1', '-f', 'null', '-']);
    };
    const lines: string[] = [];
    for (const file of [mp4, webm]) {
      const contenders = [
        { name: 'ours (MovingPictures.read)', task: ours, ms: [] as number[] },
        { name: 'floor (ffprobe + one frame)', task: floor, ms: [] as number[] },
      ];
      for (const c of contenders) await c.task(file);
      await takeTurns(reps, contenders, [
        async (c) => {
          const t0 = nowMs();
          await c.task(file);
          c.ms.push(nowMs() - t0);
        },
      ]);
      const [a, b] = contenders.map((c) => ({ p50: median(c.ms), p90: percentile(c.ms, 90) }));
      lines.push(
        `${path.basename(file)} (30 s, 1280×720, 30/s, sound): ours p50 ${a!.p50.toFixed(0)} ms, p90 ${a!.p90.toFixed(0)} ms;` +
          ` floor p50 ${b!.p50.toFixed(0)} ms, p90 ${b!.p90.toFixed(0)} ms; ours / floor ${(a!.p50 / b!.p50).toFixed(2)}`,
      );
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await pool.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
