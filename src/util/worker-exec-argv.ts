/**
 * Node flags for a worker thread. Compiled workers (dist/, scripts/build.mjs) need none beyond the
 * inherited ones. TypeScript workers (workers/*.ts) must load TypeScript themselves: worker threads
 * inherit process.execArgv, which already carries tsx's hooks under `tsx file.ts` and `node --import
 * tsx`, or Node's own `--experimental-transform-types` (ava's workers, package.json); add tsx (as a
 * resolved URL, so the process cwd does not matter) only when the parent has neither, e.g. registered
 * tsx programmatically.
 *
 * V8 heap flags (scripts/start.sh runs `node --max-semi-space-size=8 --heap-growing-percent=30`) are left out: a Worker
 * refuses them in its execArgv, and they are process-wide, so the worker's isolate has them already. So is
 * `--perf-basic-prof-only-functions`, for profiling under `perf` a process that starts workers.
 */
const PROCESS_WIDE_FLAG = /^--(max-(semi|old)-space-size|heap-growing-percent|perf-basic-prof-only-functions)(=|$)/;

export function workerExecArgv(workerFile: string | URL): string[] {
  const inherited = process.execArgv.filter((arg) => !PROCESS_WIDE_FLAG.test(arg));
  if (String(workerFile).endsWith('.js') || inherited.some((arg) => /tsx|^--experimental-transform-types$/.test(arg)))
    return inherited;
  return [...inherited, '--import', import.meta.resolve('tsx')];
}
