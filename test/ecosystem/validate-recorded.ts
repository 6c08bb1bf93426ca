/**
 * Validates every response recorded during a test run against the OpenAPI description:
 *   rm -rf /tmp/rec && IMGPOST_RECORD_RESPONSES=/tmp/rec npx ava && npx tsx test/ecosystem/validate-recorded.ts /tmp/rec
 * Exit status 1 when any response breaks the contract.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkRecordings, formatViolations } from './contract.ts';
import { readRecordings } from './response-recorder.ts';

const dir = process.argv[2] ?? process.env.IMGPOST_RECORD_RESPONSES;
if (!dir || !fs.existsSync(dir)) {
  process.stderr.write('usage: validate-recorded.ts DIR (the IMGPOST_RECORD_RESPONSES directory of a test run)\n');
  process.exit(2);
}
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => path.join(dir, f));
const report = checkRecordings(readRecordings(files));
process.stdout.write(`${report.checked} responses checked from ${files.length} files, ${report.unmatched} without a documented operation, ${report.violations.length} violations\n`);
if (report.violations.length > 0) process.stdout.write(`${formatViolations(report.violations)}\n`);
process.exitCode = report.violations.length > 0 ? 1 : 0;
