import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { locateFfmpeg } from '../../src/video/binaries.ts';
import { tempDir } from './app.ts';

/**
 * Moving pictures made in the test run by real encoders (docs/decisions.md §21): small (160×120, a
 * few seconds) so a file's cases share them. Each is made once per process, on first use.
 */
const run = promisify(execFile);
export const ffmpegTools = locateFfmpeg({}, process.env.PATH);
const PHOTOS = new URL('../fixtures/photos/', import.meta.url).pathname;

let dir: string | undefined;
const made = new Map<string, Promise<string>>();

export function clipsDir(): string {
  dir ??= tempDir('imgpost-clips');
  return dir;
}

export function removeClips(): void {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
}

/** Runs ffmpeg with these arguments, writing `name` in the clips directory, once. */
export function ffmpegClip(name: string, args: string[]): Promise<string> {
  let file = made.get(name);
  if (!file) {
    const out = path.join(clipsDir(), name);
    file = run(ffmpegTools.ffmpeg, ['-v', 'error', '-y', ...args, out]).then(() => out);
    made.set(name, file);
  }
  return file;
}

const lavfi = (...sources: string[]) => sources.flatMap((s) => ['-f', 'lavfi', '-i', s]);
const picture = (seconds: number, rate = 25, source = 'testsrc2') => `${source}=s=160x120:r=${rate}:d=${seconds}`;
const tone = (seconds: number) => `sine=f=440:d=${seconds}`;

export interface ClipFacts {
  mime: string;
  ext: string;
  kind: 'animation' | 'video';
  duration: number;
  frames: number;
  hasAudio: boolean;
}

/** The six forms §21 takes, with what each must read as. */
export const CLIPS: Record<string, { make: () => Promise<string>; facts: ClipFacts }> = {
  'vp8-opus.webm': {
    make: () => ffmpegClip('vp8-opus.webm', [...lavfi(picture(2), tone(2)), '-c:v', 'libvpx', '-c:a', 'libopus']),
    facts: { mime: 'video/webm', ext: 'webm', kind: 'video', duration: 2, frames: 50, hasAudio: true },
  },
  'vp9.webm': {
    make: () =>
      ffmpegClip('vp9.webm', [
        ...lavfi('mandelbrot=s=160x120:r=25'),
        ...['-t', '2', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
      ]),
    facts: { mime: 'video/webm', ext: 'webm', kind: 'video', duration: 2, frames: 50, hasAudio: false },
  },
  'h264-aac.mp4': {
    make: () =>
      ffmpegClip('h264-aac.mp4', [
        ...lavfi(picture(2, 25, 'testsrc'), tone(2)),
        ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac'],
      ]),
    facts: { mime: 'video/mp4', ext: 'mp4', kind: 'video', duration: 2, frames: 50, hasAudio: true },
  },
  'anim.gif': {
    make: () => ffmpegClip('anim.gif', [...lavfi(picture(2, 10)), '-vf', 'vflip']),
    facts: { mime: 'image/gif', ext: 'gif', kind: 'animation', duration: 2, frames: 20, hasAudio: false },
  },
  'anim.png': {
    make: () => ffmpegClip('anim.png', [...lavfi(picture(2, 10, 'smptebars')), '-f', 'apng', '-plays', '0']),
    facts: { mime: 'image/png', ext: 'png', kind: 'animation', duration: 2, frames: 20, hasAudio: false },
  },
  'anim.webp': {
    // libwebp through sharp, from a GIF of its own
    make: async () => {
      const gif = await ffmpegClip('for-webp.gif', [...lavfi('life=s=160x120:r=10:seed=7:mold=10'), '-t', '2']);
      const out = path.join(clipsDir(), 'anim.webp');
      await sharp(gif, { animated: true }).webp().toFile(out);
      return out;
    },
    facts: { mime: 'image/webp', ext: 'webp', kind: 'animation', duration: 2, frames: 20, hasAudio: false },
  },
};

/**
 * Three shots of a slow pan over three photographs (about 4 s): frames within a shot agree, as in
 * a real video, so a frame or a short GIF cut from it can be found again.
 */
export function shotsClip(): Promise<string> {
  const shot = (i: number) => `[${i}]scale=200:-2,crop=160:120:x='t*10':y=10,fps=25[s${i}]`;
  return ffmpegClip('shots.webm', [
    ...['-loop', '1', '-t', '1.4', '-i', `${PHOTOS}chelsea.jpg`],
    ...['-loop', '1', '-t', '1.3', '-i', `${PHOTOS}coffee.jpg`],
    ...['-loop', '1', '-t', '1.3', '-i', `${PHOTOS}motorcycle.jpg`],
    ...['-filter_complex', `${shot(0)};${shot(1)};${shot(2)};[s0][s1][s2]concat=n=3:v=1[v]`],
    ...['-map', '[v]', '-c:v', 'libvpx', '-b:v', '400k'],
  ]);
}

/** 1 s of black and 1 s of one title card, then 2 s of `body` (a lavfi source of 160×120 at 25/s). */
export function introClip(name: string, body: string): Promise<string> {
  const intro =
    'color=c=black:s=160x120:r=25:d=1[b];color=c=navy:s=160x120:r=25:d=1,drawbox=x=30:y=40:w=100:h=40:color=white:t=fill[c]';
  return ffmpegClip(name, [
    ...['-filter_complex', `${intro};${body},trim=duration=2[m];[b][c][m]concat=n=3:v=1:a=0[v]`],
    ...['-map', '[v]', '-c:v', 'libvpx', '-b:v', '300k'],
  ]);
}

export { lavfi, picture, tone };
