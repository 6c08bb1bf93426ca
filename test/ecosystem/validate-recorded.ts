/**
 * Validates every response recorded during a test run against the OpenAPI description. `npm test`
 * (test/run-suite.ts) runs it after ava; by hand:
 *   rm -rf /tmp/rec && IMGPOST_RECORD_RESPONSES=/tmp/rec npx ava &&
 *     npx tsx test/ecosystem/validate-recorded.ts /tmp/rec
 * Prints a summary (responses per operation and status; requests no operation covers; violations,
 * grouped) and exits 1 when any response breaks the contract.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPERATIONS } from '../../src/openapi/operations.ts';
import { checkRecordings, findOperation, type ContractReport } from './contract.ts';
import { readRecordings } from './response-recorder.ts';

export interface RecordingsSummary {
  files: number;
  report: ContractReport;
  /** the printable summary */
  text: string;
}

const MAX_LISTED = 20;

/** Checks every *.jsonl file in `dir`; never throws on violations, the caller decides. */
export function validateDirectory(dir: string): RecordingsSummary {
  const files = fs.existsSync(dir)
    ? fs
        .readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .sort()
        .map((f) => path.join(dir, f))
    : [];
  const records = readRecordings(files);
  const report = checkRecordings(records);

  // Counts per operation and status, and what no operation covers (method status path).
  const counts = new Map<string, Map<number, number>>();
  const unmatched = new Map<string, number>();
  for (const r of records) {
    const op = findOperation(r.method, r.path);
    if (!op) {
      const key = `${r.method} ${r.status} ${r.path.length > 60 ? `${r.path.slice(0, 57)}...` : r.path}`;
      unmatched.set(key, (unmatched.get(key) ?? 0) + 1);
      continue;
    }
    const byStatus = counts.get(op.operationId) ?? new Map<number, number>();
    byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + 1);
    counts.set(op.operationId, byStatus);
  }

  const lines: string[] = [];
  const ok = report.violations.length === 0;
  lines.push(
    `OpenAPI response validation: ${report.checked} responses checked against the document (${files.length} recording files); ${report.unmatched} without a documented operation; ${report.violations.length} violations`,
  );
  const width = Math.max(...OPERATIONS.map((o) => o.operationId.length));
  for (const op of OPERATIONS) {
    const byStatus = counts.get(op.operationId);
    const total = byStatus ? [...byStatus.values()].reduce((a, b) => a + b, 0) : 0;
    const detail = byStatus
      ? [...byStatus]
          .sort(([a], [b]) => a - b)
          .map(([s, n]) => `${s}×${n}`)
          .join(' ')
      : '(not exercised)';
    lines.push(
      `  ${op.operationId.padEnd(width)} ${String(total).padStart(6)}  ${`${op.method.toUpperCase()} ${op.path}`.padEnd(36)} ${detail}`,
    );
  }
  if (unmatched.size > 0) {
    lines.push(`  without a documented operation (not checked):`);
    const sorted = [...unmatched].sort((a, b) => b[1] - a[1]);
    for (const [key, n] of sorted.slice(0, MAX_LISTED)) lines.push(`    ${String(n).padStart(5)}  ${key}`);
    if (sorted.length > MAX_LISTED) lines.push(`    ... and ${sorted.length - MAX_LISTED} more`);
  }
  if (!ok) {
    // The same problem across a whole suite comes many times: grouped, with one example request each.
    const groups = new Map<string, { n: number; example: string }>();
    for (const v of report.violations) {
      const op = v.request.slice(v.request.lastIndexOf('('));
      const key = `${op} -> ${v.status}: ${v.problem}`;
      const g = groups.get(key) ?? { n: 0, example: v.request };
      g.n++;
      groups.set(key, g);
    }
    lines.push(`VIOLATIONS (${report.violations.length}, ${groups.size} distinct):`);
    for (const [key, g] of groups) lines.push(`  ${String(g.n).padStart(5)}× ${key}\n         e.g. ${g.example}`);
  }
  return { files: files.length, report, text: lines.join('\n') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dir = process.argv[2] ?? process.env.IMGPOST_RECORD_RESPONSES;
  if (!dir || !fs.existsSync(dir)) {
    process.stderr.write('usage: validate-recorded.ts DIR (the IMGPOST_RECORD_RESPONSES directory of a test run)\n');
    process.exit(2);
  }
  const { report, text } = validateDirectory(dir);
  process.stdout.write(`${text}\n`);
  process.exitCode = report.violations.length > 0 ? 1 : 0;
}
