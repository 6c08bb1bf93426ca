import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { AppError } from '../../src/errors.ts';
import { locateFfmpeg } from '../../src/video/binaries.ts';
import { MediaRunner } from '../../src/video/runner.ts';

/**
 * The bounds of every ffprobe and ffmpeg run (docs/decisions.md §21), below the upload path; what files
 * are taken or refused, and the duplicate rule, are shown through HTTP in upload.test.ts.
 */
const tools = locateFfmpeg({}, process.env.PATH);

let dir = '';
test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'imgpost-video-'));
});
test.after.always(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

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
  // 16 MiB of address space is too little for ffmpeg to even load its libraries: it is refused.
  const tight = new MediaRunner({ timeoutMs: 10_000, memoryMb: 16, inFlight: 1 });
  const hungry = await t.throwsAsync(tight.run(tools.ffmpeg, ['-v', 'error', '-version']));
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
