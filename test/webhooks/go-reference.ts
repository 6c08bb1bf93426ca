/**
 * Runs templates through Go's own text/template (test/webhooks/go-reference/, standard library
 * only) on the original service's payload types: one Go process for all of them.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { PayloadJSON } from '../../src/webhooks/payload-types.ts';

export type GoResult = { ok: true; out: Buffer } | { ok: false; error: string };

export interface GoCase {
  event: PayloadJSON['event'];
  template: string;
}

const DIR = path.join(import.meta.dirname, 'go-reference');

/** Why Go cannot run here, or null when `go` is on PATH. */
export function goMissing(): string | null {
  const r = spawnSync('go', ['version'], { encoding: 'utf8' });
  return r.error || r.status !== 0 ? `Go is not installed (apt-get install golang-go): ${r.error ?? r.stderr}` : null;
}

export function runGo(payloads: Record<string, PayloadJSON>, cases: GoCase[]): GoResult[] {
  const r = spawnSync('go', ['run', '.'], {
    cwd: DIR,
    input: JSON.stringify({ payloads, cases }),
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: 120_000,
    env: { ...process.env, GOFLAGS: '-mod=mod', GOPROXY: 'off', GO111MODULE: 'on' },
  });
  if (r.error || r.status !== 0) throw new Error(`go run failed: ${r.error ?? ''} ${r.stderr}`);
  const lines = r.stdout.trim().split('\n');
  if (lines.length !== cases.length) throw new Error(`go gave ${lines.length} results for ${cases.length} cases`);
  return lines.map((l) => {
    const j = JSON.parse(l) as { ok: boolean; out?: string; error?: string };
    return j.ok ? { ok: true, out: Buffer.from(j.out ?? '', 'base64') } : { ok: false, error: j.error ?? '' };
  });
}
