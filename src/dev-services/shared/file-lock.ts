import fs from 'node:fs';
import fsp from 'node:fs/promises';

/**
 * An exclusive lock across processes: a file created with O_EXCL holding the owner's pid. A lock
 * whose owner has died is taken over (renamed away first, so of two processes clearing the same
 * stale lock only one succeeds).
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function readPid(file: string): number | undefined {
  let text: string | undefined;
  try { text = fs.readFileSync(file, 'utf8'); } catch { return undefined; }
  const pid = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

export function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); } catch (err) { if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false; }
  // An unreaped zombie has exited even though kill(0) succeeds.
  try { return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')); } catch { return true; }
}

/**
 * Resolves with a release function once the lock is ours, or with undefined as soon as `done()`
 * says the work the holder was doing is finished (no need to take the lock then).
 */
export async function acquireFileLock(
  file: string,
  opts: { waitMs: number; onWait?: (holder: number | undefined) => void; done?: () => boolean | Promise<boolean> },
): Promise<(() => void) | undefined> {
  const deadline = Date.now() + opts.waitMs;
  let announced = false;
  for (;;) {
    try {
      const fh = await fsp.open(file, 'wx');
      await fh.writeFile(`${process.pid}\n`);
      await fh.close();
      return () => fs.rmSync(file, { force: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = readPid(file);
    let age = 0;
    try { age = Date.now() - fs.statSync(file).mtimeMs; } catch { continue; }
    // An empty lock is one being written right now, unless it is old.
    if (holder === undefined ? age > 10_000 : !pidAlive(holder)) {
      const grave = `${file}.stale-${process.pid}`;
      try { fs.renameSync(file, grave); } catch { continue; }
      const taken = readPid(grave);
      // We moved a fresh lock taken meanwhile: link it back (fails if yet another exists).
      if (taken !== undefined && taken !== holder && pidAlive(taken)) { try { fs.linkSync(grave, file); } catch { /* ignore */ } }
      fs.rmSync(grave, { force: true });
      continue;
    }
    if (!announced) opts.onWait?.(holder);
    announced = true;
    if (opts.done && (await opts.done())) return undefined;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${file} (held by pid ${holder}); remove it if that process is gone`);
    await sleep(500);
  }
}
