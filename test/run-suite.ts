/**
 * `npm test`: the ava suite with every test app recording its responses (IMGPOST_RECORD_RESPONSES,
 * see test/ecosystem/response-recorder.ts), then the OpenAPI check over all of them
 * (test/ecosystem/validate-recorded.ts). Extra arguments go to ava: `npm test -- test/posts/crud.test.ts`.
 *
 * Exit status: ava's when it fails; otherwise 1 when any recorded response breaks the documented
 * contract, or when a full run (no arguments) recorded nothing at all, which means recording broke.
 * The recordings go to a temporary directory, removed afterwards unless there were violations;
 * with IMGPOST_RECORD_RESPONSES already set they go there and stay.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const given = process.env.IMGPOST_RECORD_RESPONSES;
const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-responses-'));

// ava's command line, run by this very node: no shell, no .bin shims.
const avaEntry = createRequire(import.meta.url).resolve('ava');
const avaRoot = path.resolve(path.dirname(avaEntry), '..');
const avaBin = path.join(
  avaRoot,
  (JSON.parse(fs.readFileSync(path.join(avaRoot, 'package.json'), 'utf8')) as { bin: { ava: string } }).bin.ava,
);

const started = Date.now();
const child = spawn(process.execPath, [avaBin, ...args], {
  stdio: 'inherit',
  env: { ...process.env, IMGPOST_RECORD_RESPONSES: dir },
});
// Ctrl-C reaches ava from the terminal by itself; this process only waits for it to wrap up.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));

const avaCode = await new Promise<number>((resolve) => {
  child.once('error', (err) => {
    process.stderr.write(`run-suite: could not start ava: ${err.message}\n`);
    resolve(1);
  });
  child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 + (os.constants.signals[signal] ?? 0) : 1)));
});
const avaSeconds = ((Date.now() - started) / 1000).toFixed(0);

// Loaded only now: it builds the OpenAPI document, which ava's run does not need from this process.
const { validateDirectory } = await import('./ecosystem/validate-recorded.ts');
const { report, text } = validateDirectory(dir);
process.stdout.write(`\n${text}\n`);

let code = avaCode;
if (report.violations.length > 0) {
  process.stdout.write(`OpenAPI response validation FAILED; the recordings are kept in ${dir}\n`);
  if (code === 0) code = 1;
} else if (report.checked === 0 && args.length === 0 && avaCode === 0) {
  process.stdout.write(
    'OpenAPI response validation FAILED: a full run recorded no response at all (is recording wired into test/helpers/app.ts?)\n',
  );
  code = 1;
} else {
  process.stdout.write(
    `OpenAPI response validation passed${avaCode === 0 ? '' : ' (over what ran; ava itself failed)'}\n`,
  );
}
process.stdout.write(`ava: ${avaSeconds} s, exit code ${avaCode}\n`);
if (!given && report.violations.length === 0) fs.rmSync(dir, { recursive: true, force: true });
process.exit(code);
