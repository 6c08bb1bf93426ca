/**
 * Per-file wall times of a test run. ava loads this in every test worker (package.json's ava
 * `require`); with IMGPOST_FILE_TIMES=<dir>, which test/run-suite.ts sets, the worker appends its test
 * file and the seconds from its start to its exit to <dir>/times-<pid>.jsonl. run-suite prints the
 * slowest files, and with IMGPOST_UPDATE_DURATIONS=1 keeps them in test/durations.json, by which it
 * starts the slowest files first. Without the variable it does nothing.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface FileTime {
  /** relative to the project, with forward slashes: test/posts/outage.test.ts */
  file: string;
  seconds: number;
  /**
   * CPU seconds of the worker and of the child processes it waited for (servers, CLI runs, Chromium);
   * not of a daemon such as a test's own Elasticsearch node
   */
  cpu?: number;
  /**
   * seconds from the end of the file's last test and hook to the worker's exit: what keeps its event loop
   * up (a pending timer, an open socket) also holds one of ava's concurrency slots
   */
  linger?: number;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The test file this worker runs: ava's worker options (set before the `require` modules load). */
function currentTestFile(): string | undefined {
  const require = createRequire(import.meta.url);
  const avaRoot = path.resolve(path.dirname(require.resolve('ava')), '..');
  const options = require(path.join(avaRoot, 'lib', 'worker', 'options.cjs')) as { get(): { file?: string } };
  const file = options.get().file;
  return file && path.relative(ROOT, file.startsWith('file:') ? new URL(file).pathname : file).replaceAll('\\', '/');
}

/** This process's CPU time and its waited-for children's (/proc/self/stat utime, stime, cutime, cstime). */
function cpuSeconds(): number | undefined {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    // USER_HZ is 100 on Linux.
    return Math.round(ticks) / 100;
  } catch {
    return undefined;
  }
}

export default function recordFileTime(): void {
  const dir = process.env.IMGPOST_FILE_TIMES;
  if (!dir) return;
  let file: string | undefined;
  try {
    file = currentTestFile();
  } catch {
    // Another ava than the pinned one keeps its options elsewhere: no times, the run itself goes on.
    return;
  }
  if (!file) return;
  // The worker tells ava it has finished over IPC (node_modules/ava/lib/worker/base.js); its exit may come later.
  let finishedAt: number | undefined;
  const send = process.send?.bind(process);
  if (send)
    process.send = ((message: { ava?: { type?: string } }, ...rest: unknown[]) => {
      if (message?.ava?.type === 'worker-finished') finishedAt = performance.now();
      return (send as (...args: unknown[]) => boolean)(message, ...rest);
    }) as typeof process.send;
  const tenths = (ms: number) => Math.round(ms / 100) / 10;
  process.on('exit', () => {
    // performance.now() counts from the process's start: the worker's start-up and imports included.
    const now = performance.now();
    const time: FileTime = {
      file,
      seconds: tenths(now),
      cpu: cpuSeconds(),
      ...(finishedAt === undefined ? {} : { linger: tenths(now - finishedAt) }),
    };
    // A record is a convenience: whatever happened to the directory, the worker's exit status stays its tests'.
    try {
      fs.mkdirSync(dir, { recursive: true });
      fs.appendFileSync(path.join(dir, `times-${process.pid}.jsonl`), `${JSON.stringify(time)}\n`);
    } catch {
      // no record for this file
    }
  });
}

/** Every time recorded in `dir`, slowest first. */
export function readFileTimes(dir: string): FileTime[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      fs
        .readFileSync(path.join(dir, f), 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as FileTime),
    )
    .sort((a, b) => b.seconds - a.seconds);
}
