/**
 * `npm test`: the ava suite with every test app recording its responses (IMGPOST_RECORD_RESPONSES,
 * see test/ecosystem/response-recorder.ts), then the OpenAPI check over all of them
 * (test/ecosystem/validate-recorded.ts). Extra arguments go to ava: `npm test -- test/posts/crud.test.ts`.
 *
 * Exit status: ava's when it fails; otherwise 1 when any recorded response breaks the documented
 * contract, or when a full run (no arguments) recorded nothing at all, which means recording broke.
 * The recordings go to a temporary directory, removed afterwards unless there were violations;
 * with IMGPOST_RECORD_RESPONSES already set they go there and stay.
 *
 * A full run hands ava every test file, slowest first by test/durations.json (seconds per file; files
 * it does not name first of all, as they may be slow): ava starts files in the order given, three at
 * a time, and a minute-long file started last would run on alone at the end. Each worker records its
 * file's wall time (test/tools/file-times.ts); the slowest are printed at the end, and
 * IMGPOST_UPDATE_DURATIONS=1 writes them all to test/durations.json after a full run that passed. With
 * IMGPOST_FILE_TIMES already set the records (wall and CPU seconds of every file) go there and stay.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { readFileTimes } from './tools/file-times.ts';

const args = process.argv.slice(2);
const given = process.env.IMGPOST_RECORD_RESPONSES;
const dir = given ?? fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-responses-'));
const givenTimes = process.env.IMGPOST_FILE_TIMES;
const timesDir = givenTimes ?? fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-file-times-'));
const ROOT = path.resolve(import.meta.dirname, '..');
const DURATIONS = path.join(ROOT, 'test', 'durations.json');

/** Every test file ava's configuration selects, slowest first by test/durations.json, unknown ones before all. */
function slowestFirst(): string[] {
  const { ava } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { ava: { files: string[] } };
  // fs.globSync is Node 22's; the types are Node 20's (package.json), the runtime Node 24.
  const { globSync } = fs as unknown as { globSync(pattern: string, opts: { cwd: string }): string[] };
  const files = [...new Set(ava.files.flatMap((pattern) => globSync(pattern, { cwd: ROOT })))].map((f) =>
    f.replaceAll(path.sep, '/'),
  );
  let known: Record<string, number> = {};
  try {
    known = JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) as Record<string, number>;
  } catch {
    // No record: ava's own order.
  }
  const seconds = (f: string) => known[f] ?? Number.POSITIVE_INFINITY;
  return files.sort((a, b) => seconds(b) - seconds(a) || a.localeCompare(b));
}

// ava's command line, run by this very node: no shell, no .bin shims.
const avaEntry = createRequire(import.meta.url).resolve('ava');
const avaRoot = path.resolve(path.dirname(avaEntry), '..');
const avaBin = path.join(
  avaRoot,
  (JSON.parse(fs.readFileSync(path.join(avaRoot, 'package.json'), 'utf8')) as { bin: { ava: string } }).bin.ava,
);

const started = Date.now();
// Node's on-disk code cache for every process of the run (ava's workers, the servers and CLI runs they
// start): the suite starts a few hundred processes that load the same modules; with the cache each
// spends about a tenth less CPU loading them. A quiet optimization: nothing fails without it.
const compileCache = process.env.NODE_COMPILE_CACHE ?? path.join(ROOT, 'node_modules', '.cache', 'node-compile-cache');
const child = spawn(process.execPath, [avaBin, ...(args.length > 0 ? args : slowestFirst())], {
  stdio: 'inherit',
  env: {
    ...process.env,
    IMGPOST_RECORD_RESPONSES: dir,
    IMGPOST_FILE_TIMES: timesDir,
    NODE_COMPILE_CACHE: compileCache,
  },
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
const times = readFileTimes(timesDir);
if (!givenTimes) fs.rmSync(timesDir, { recursive: true, force: true });
if (times.length > 1) {
  process.stdout.write(`slowest test files (wall time, ${times.length} files):\n`);
  for (const { file, seconds, cpu } of times.slice(0, 10))
    process.stdout.write(
      `  ${seconds.toFixed(1).padStart(6)} s  ${cpu === undefined ? '' : `(CPU ${cpu.toFixed(1)} s)  `}${file}\n`,
    );
  const lingering = times.filter((t) => (t.linger ?? 0) >= 1).sort((a, b) => b.linger! - a.linger!);
  if (lingering.length > 0)
    process.stdout.write(
      `  workers that stayed up after their last test (a pending timer or open handle holds a slot): ${lingering
        .map((t) => `${t.file} ${t.linger!.toFixed(1)} s`)
        .join(', ')}\n`,
    );
  const cpu = times.reduce((sum, t) => sum + (t.cpu ?? 0), 0);
  process.stdout.write(`  CPU of all test workers and their waited-for children: ${cpu.toFixed(0)} s\n`);
}
if (process.env.IMGPOST_UPDATE_DURATIONS === '1' && args.length === 0 && avaCode === 0) {
  fs.writeFileSync(
    DURATIONS,
    `${JSON.stringify(Object.fromEntries(times.map((t) => [t.file, t.seconds])), null, 2)}\n`,
  );
  process.stdout.write(`wrote ${path.relative(ROOT, DURATIONS)}\n`);
}
process.stdout.write(`ava: ${avaSeconds} s, exit code ${avaCode}\n`);
if (!given && report.violations.length === 0) fs.rmSync(dir, { recursive: true, force: true });
process.exit(code);
