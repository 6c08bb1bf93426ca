import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import sharp from 'sharp';
import { AppError, type ErrorCode } from '../../src/errors.ts';
import { locateFfmpeg } from '../../src/video/binaries.ts';
import { FrameReader, sameMovingPicture } from '../../src/video/frames.ts';
import { type MediaKind, MediaProber } from '../../src/video/probe.ts';
import { MediaRunner } from '../../src/video/runner.ts';

const run = promisify(execFile);
const tools = locateFfmpeg({}, process.env.PATH);
const runner = new MediaRunner({ timeoutMs: 20_000, memoryMb: 1024, inFlight: 2 });
const limits = {
  maxImageBytes: 4 * 1024 * 1024,
  maxVideoBytes: 100 * 1024 * 1024,
  maxVideoSeconds: 600,
  maxVideoSide: 7680,
};
const prober = new MediaProber(runner, tools, limits);
const reader = new FrameReader(runner, tools);

let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'imgpost-video-'));
});
test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Makes a file with ffmpeg from lavfi sources; `args` come after the inputs. */
async function make(name: string, inputs: string[], args: string[]): Promise<string> {
  const file = path.join(dir, name);
  const input = inputs.flatMap((i) => ['-f', 'lavfi', '-i', i]);
  await run(tools.ffmpeg, ['-v', 'error', '-y', ...input, ...args, file]);
  return file;
}

const picture = (seconds: number, source = 'testsrc2') => `${source}=s=160x120:r=25:d=${seconds}`;
const tone = (seconds: number) => `sine=f=440:d=${seconds}`;

async function refusedWith(t: import('ava').ExecutionContext, file: string, code: ErrorCode, pattern: RegExp) {
  const err = await t.throwsAsync(async () => {
    const info = await prober.probe(file);
    await reader.hashes(file, info);
  });
  t.true(err instanceof AppError, String(err));
  t.is((err as AppError).code, code);
  t.regex(err?.message ?? '', pattern);
}

test('ffmpeg is found by its setting, then on PATH, then from the npm packages', (t) => {
  t.deepEqual(locateFfmpeg({ ffmpegPath: '/opt/ff/ffmpeg', ffprobePath: '/opt/ff/ffprobe' }, '/usr/bin'), {
    ffmpeg: '/opt/ff/ffmpeg',
    ffprobe: '/opt/ff/ffprobe',
    source: 'setting',
  });
  t.deepEqual(locateFfmpeg({}, '/usr/bin'), {
    ffmpeg: '/usr/bin/ffmpeg',
    ffprobe: '/usr/bin/ffprobe',
    source: 'system',
  });
  const npm = locateFfmpeg({}, '');
  t.is(npm.source, 'npm');
  t.regex(npm.ffmpeg, /@ffmpeg-installer/);
  t.regex(npm.ffprobe, /@ffprobe-installer/);
});

test('a run over its time, output or memory limit is killed and refused as media_too_complex', async (t) => {
  const quick = new MediaRunner({ timeoutMs: 300, memoryMb: 64, inFlight: 1 });
  const slow = await t.throwsAsync(quick.run('sleep', ['30']));
  t.is((slow as AppError).code, 'media_too_complex');
  t.regex(slow?.message ?? '', /time limit/);
  const chatty = await t.throwsAsync(
    new MediaRunner({ timeoutMs: 10_000, memoryMb: 256, inFlight: 1 }).run('yes', [], 1000),
  );
  t.is((chatty as AppError).code, 'media_too_complex');
  t.regex(chatty?.message ?? '', /output limit/);
  // 64 MiB of address space is too little for ffmpeg to decode with: it fails to allocate, and is refused.
  const clip = await make('tight.webm', [picture(1)], ['-c:v', 'libvpx', '-b:v', '200k']);
  const tight = new FrameReader(new MediaRunner({ timeoutMs: 10_000, memoryMb: 16, inFlight: 1 }), tools);
  const info = await prober.probe(clip);
  const hungry = await t.throwsAsync(tight.hashes(clip, info));
  t.is((hungry as AppError).code, 'media_too_complex');
});

test('runs in flight are bounded: the rest wait their turn', async (t) => {
  const one = new MediaRunner({ timeoutMs: 10_000, memoryMb: 256, inFlight: 1 });
  const marker = path.join(dir, 'in-flight');
  await writeFile(marker, '');
  // Each run appends "start" then "end"; with one in flight they never interleave.
  const script = `echo start >> ${marker}; sleep 0.1; echo end >> ${marker}`;
  await Promise.all([1, 2, 3].map(() => one.run('sh', ['-c', script])));
  t.is((await readFile(marker, 'utf8')).trim().split('\n').join(' '), 'start end start end start end');
});

test('real clips are read from their bytes with kind, type, size, duration, frames and sound', async (t) => {
  const clips = [
    { name: 'vp8-opus.webm', inputs: [picture(3), tone(3)], args: ['-c:v', 'libvpx', '-c:a', 'libopus', '-shortest'] },
    { name: 'vp9.webm', inputs: [picture(2)], args: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'] },
    {
      name: 'h264-aac.mp4',
      inputs: [picture(3), tone(3)],
      args: ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest'],
    },
    { name: 'anim.gif', inputs: [picture(2, 'testsrc').replace('r=25', 'r=10')], args: [] },
    { name: 'anim.png', inputs: [picture(2, 'testsrc').replace('r=25', 'r=10')], args: ['-f', 'apng', '-plays', '0'] },
  ];
  type Want = { kind: MediaKind; mime: string; duration: number; frames: number; hasAudio: boolean };
  const expected: Record<string, Want> = {
    'vp8-opus.webm': { kind: 'video', mime: 'video/webm', duration: 3, frames: 75, hasAudio: true },
    'vp9.webm': { kind: 'video', mime: 'video/webm', duration: 2, frames: 50, hasAudio: false },
    'h264-aac.mp4': { kind: 'video', mime: 'video/mp4', duration: 3, frames: 75, hasAudio: true },
    'anim.gif': { kind: 'animation', mime: 'image/gif', duration: 2, frames: 20, hasAudio: false },
    'anim.png': { kind: 'animation', mime: 'image/png', duration: 2, frames: 20, hasAudio: false },
  };
  for (const c of clips) {
    const file = await make(c.name, c.inputs, c.args);
    const info = await prober.probe(file);
    const want = expected[c.name];
    t.is(info.kind, want?.kind, c.name);
    t.is(info.mime, want?.mime, c.name);
    t.is(info.width, 160, c.name);
    t.is(info.height, 120, c.name);
    t.is(info.bytes, (await readFile(file)).length, c.name);
    t.true(Math.abs((info.duration ?? 0) - (want?.duration ?? 0)) <= 0.1, `${c.name}: ${info.duration}`);
    t.is(info.frames, want?.frames, c.name);
    t.is(info.hasAudio, want?.hasAudio, c.name);
    const hashes = await reader.hashes(file, info);
    t.false(hashes.poster.blank, c.name);
    t.is(hashes.frames.length, 8, c.name);
  }
  // An animated WebP (made from the GIF by libwebp through sharp): frames are read by sharp.
  const webp = path.join(dir, 'anim.webp');
  await sharp(path.join(dir, 'anim.gif'), { animated: true }).webp().toFile(webp);
  const info = await prober.probe(webp);
  t.like(info, { kind: 'animation', mime: 'image/webp', width: 160, height: 120, frames: 20, hasAudio: false });
  t.true(Math.abs((info.duration ?? 0) - 2) <= 0.1, String(info.duration));
  t.false((await reader.hashes(webp, info)).poster.blank);
});

test('hostile and unsupported files are refused, each naming what was wrong', async (t) => {
  const clip = await make('good.webm', [picture(2)], ['-c:v', 'libvpx', '-b:v', '300k']);
  const bytes = await readFile(clip);
  const html = path.join(dir, 'page.mp4');
  await writeFile(html, '<!doctype html><html><script>alert(1)</script></html>');
  await refusedWith(t, html, 'unsupported_media', /HTML/);
  const gifHtml = path.join(dir, 'gifar.gif');
  await writeFile(gifHtml, Buffer.concat([Buffer.from('GIF89a'), Buffer.from('<script>alert(1)</script>')]));
  await refusedWith(t, gifHtml, 'unsupported_media', /HTML/);
  const zipped = path.join(dir, 'zipped.webm');
  await writeFile(zipped, Buffer.concat([bytes, Buffer.from('PK\x05\x06'), Buffer.alloc(18)]));
  await refusedWith(t, zipped, 'unsupported_media', /zip/);
  const zip = path.join(dir, 'archive.mp4');
  await writeFile(
    zip,
    Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(26), Buffer.from('PK\x05\x06'), Buffer.alloc(18)]),
  );
  await refusedWith(t, zip, 'unsupported_media', /zip/);
  const truncated = path.join(dir, 'truncated.webm');
  await writeFile(truncated, bytes.subarray(0, Math.floor(bytes.length / 3)));
  await refusedWith(t, truncated, 'unsupported_media', /cannot be decoded|truncated|corrupt/);
  const two = await make('two.webm', [picture(1), picture(1, 'testsrc')], ['-map', '0', '-map', '1', '-c:v', 'libvpx']);
  await refusedWith(t, two, 'unsupported_media', /2 video streams/);
  const mpeg4 = await make('mpeg4.mp4', [picture(1)], ['-c:v', 'mpeg4']);
  await refusedWith(t, mpeg4, 'unsupported_media', /video codec mpeg4/);
  const flac = await make('flac.webm', [picture(1), tone(1)], ['-c:v', 'libvpx', '-c:a', 'flac', '-f', 'matroska']);
  await refusedWith(t, flac, 'unsupported_media', /audio codec flac/);
  const avi = await make('clip.avi', [picture(1)], ['-c:v', 'mjpeg']);
  await refusedWith(t, avi, 'unsupported_media', /signature/);
  // Ten hours of a 16×16 still at one frame a minute: a few kilobytes.
  const long = await make('long.webm', ['color=c=gray:s=16x16:r=1/60:d=36000'], ['-c:v', 'libvpx']);
  t.true((await readFile(long)).length < 64 * 1024);
  await refusedWith(t, long, 'unsupported_media', /MAX_VIDEO_SECONDS/);
  const wide = new MediaProber(runner, tools, { ...limits, maxVideoSide: 100 });
  const err = await t.throwsAsync(wide.probe(clip));
  t.is((err as AppError).code, 'unsupported_media');
  t.regex(err?.message ?? '', /MAX_VIDEO_SIDE/);
});

test('a re-encoded, rescaled copy is the same moving picture; clips sharing black frames and a title card are not', async (t) => {
  const original = await make('original.webm', [picture(4)], ['-c:v', 'libvpx', '-b:v', '400k']);
  const reencode = ['-i', original, '-vf', 'scale=120:90', '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30'];
  const copy = await make('copy.mp4', [], reencode);
  const hashesOf = async (file: string) => reader.hashes(file, await prober.probe(file));
  const a = await hashesOf(original);
  const b = await hashesOf(copy);
  t.true(sameMovingPicture(a, b));
  t.true(sameMovingPicture(b, a));

  // 1 s of black, 1 s of the same title card, then 3 s of different pictures.
  const intro =
    'color=c=black:s=160x120:r=25:d=1[b];color=c=navy:s=160x120:r=25:d=1,drawbox=x=30:y=40:w=100:h=40:color=white:t=fill[c]';
  const withIntro = async (name: string, body: string) => {
    const file = path.join(dir, name);
    await run(tools.ffmpeg, [
      ...['-v', 'error', '-y', '-filter_complex', `${intro};${body}[m];[b][c][m]concat=n=3:v=1:a=0[v]`],
      ...['-map', '[v]', '-c:v', 'libvpx', '-b:v', '400k', file],
    ]);
    return file;
  };
  const first = await hashesOf(await withIntro('intro-a.webm', 'testsrc2=s=160x120:r=25:d=3'));
  const second = await hashesOf(await withIntro('intro-b.webm', 'mandelbrot=s=160x120:r=25,trim=duration=3'));
  t.false(sameMovingPicture(first, second));
  t.false(sameMovingPicture(second, first));
  t.true(
    first.frames.some((f) => f.blank),
    'the black second is a blank frame',
  );
});
