/**
 * Node flags for a worker thread whose code is TypeScript (workers/*.ts): each worker thread must
 * load tsx itself. Worker threads inherit process.execArgv, which already carries tsx's hooks under
 * `tsx file.ts`, `node --import tsx` and ava's `--import=tsx`; add it (as a resolved URL, so the
 * process cwd does not matter) only when the parent registered tsx some other way, e.g.
 * programmatically.
 */
export function workerExecArgv(): string[] {
  const inherited = process.execArgv;
  if (inherited.some((arg) => /tsx/.test(arg))) return inherited;
  return [...inherited, '--import', import.meta.resolve('tsx')];
}
