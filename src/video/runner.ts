import { spawn } from 'node:child_process';
import { AppError } from '../errors.ts';
import { Limit } from '../util/limit.ts';

/**
 * Runs ffprobe and ffmpeg on untrusted files as child processes held to a time limit, an address-space
 * cap (`ulimit -v` in the shell that execs them) and an output cap, at most `inFlight` at once; the
 * event loop only waits on pipes. A run killed for any of these refuses the upload with
 * `media_too_complex` (docs/decisions.md §21).
 */
export interface RunnerLimits {
  timeoutMs: number;
  memoryMb: number;
  inFlight: number;
  /** the most bytes a run may write to stdout */
  maxOutputBytes?: number;
}

export interface RunResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

const STDERR_KEEP = 16 * 1024;

export class MediaRunner {
  private readonly places: Limit;

  constructor(readonly limits: RunnerLimits) {
    this.places = new Limit(limits.inFlight);
  }

  run(command: string, args: string[], maxOutputBytes = this.limits.maxOutputBytes ?? 64 * 1024 * 1024) {
    return this.places.run(() => this.spawnOnce(command, args, maxOutputBytes));
  }

  private spawnOnce(command: string, args: string[], maxOutputBytes: number): Promise<RunResult> {
    const kib = this.limits.memoryMb * 1024;
    return new Promise((resolve, reject) => {
      // The cap is on address space: glibc's malloc reserves 64 MiB of it per thread's arena, and an
      // ffmpeg reading nine inputs has a thread each, so the arenas are held to two.
      const script = `ulimit -v ${kib} && MALLOC_ARENA_MAX=2 exec "$0" "$@"`;
      const child = spawn('sh', ['-c', script, command, ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const chunks: Buffer[] = [];
      let outBytes = 0;
      let stderr = '';
      let overrun: string | undefined;
      const kill = (why: string) => {
        overrun ??= why;
        child.kill('SIGKILL');
      };
      const timer = setTimeout(() => kill('ran over its time limit'), this.limits.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        outBytes += chunk.length;
        if (outBytes > maxOutputBytes) kill('wrote more than its output limit');
        else chunks.push(chunk);
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < STDERR_KEEP) stderr += chunk.toString('utf8').slice(0, STDERR_KEEP - stderr.length);
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        if (overrun) return reject(new AppError('media_too_complex', `the media is too complex: decoding ${overrun}`));
        if (
          /cannot allocate memory|out of memory|failed to allocate|failed to map segment|cannot map/i.test(stderr) ||
          signal !== null
        )
          return reject(new AppError('media_too_complex', 'the media is too complex: decoding ran out of memory'));
        resolve({ code, stdout: Buffer.concat(chunks), stderr });
      });
    });
  }
}
