/** Pacing of long copies (backup, media migrate), so they do not starve the server's disk or store. */

/** Paces a copy to `bytesPerSecond` (0: no limit), so a copy does not starve the server's disk or store. */
export function createThrottle(bytesPerSecond: number): (bytes: number) => Promise<void> {
  const started = Date.now();
  let total = 0;
  return async (bytes) => {
    if (bytesPerSecond <= 0) return;
    total += bytes;
    const due = started + (total / bytesPerSecond) * 1000;
    const wait = due - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  };
}

/** "500k", "20M", "1G" or a plain byte count → bytes. NaN when malformed. */
export function parseByteRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(text.trim());
  if (!m) return Number.NaN;
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g'];
  return Math.round(Number(m[1]) * scale);
}
