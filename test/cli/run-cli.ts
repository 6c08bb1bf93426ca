/**
 * Runs the real `imgpost` command line as a child process against a test app's DATA_DIR and index
 * prefix, with stderr a pipe (not a TTY), as in CI logs and cron jobs. Also parses the progress
 * lines the commands print there.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestApp } from '../helpers/app.ts';
import { TEST_PASSWORD_HASH_COST } from '../helpers/users.ts';
import { CLI_JS } from '../helpers/compiled.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * A backstop against a hung command, not a speed check: `rethumb` of 85 large images beside an upload
 * storm took over 60 s on a loaded 2-core box, and a kill here reads as exit code -1.
 */
const CLI_TIMEOUT_MS = 240_000;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** wall time of the child process */
  ms: number;
}

function cliEnv(app: TestApp | undefined): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Beside a server, a command reads the server's configuration, as both read one environment in
    // production: the test app's descriptors setting too (off unless the test is about them).
    ...(app
      ? {
          DATA_DIR: app.dataDir,
          ELASTICSEARCH_INDEX_PREFIX: app.services.config.elasticsearch.indexPrefix,
          ROBUST_DESCRIPTORS: app.services.config.robustDescriptors.enabled ? '1' : '0',
        }
      : {}),
    ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277',
    LOG_LEVEL: 'warn',
    HASH_WORKERS: '1',
    PASSWORD_HASH_COST: TEST_PASSWORD_HASH_COST,
  };
}

/** The command as a child process the caller holds (to kill it in the middle, say); output ignored. */
export function spawnImgpost(app: TestApp | undefined, ...args: string[]): ChildProcess {
  return spawn(process.execPath, [CLI_JS, ...args], { cwd: ROOT, env: cliEnv(app), stdio: 'ignore' });
}

export function imgpost(app: TestApp | undefined, ...args: string[]): Promise<CliResult> {
  const env = cliEnv(app);
  const started = Date.now();
  return new Promise((resolve) => {
    // The compiled CLI on this very node rather than npx, so npm's notices do not mix into stderr.
    execFile(
      process.execPath,
      [CLI_JS, ...args],
      { cwd: ROOT, env, timeout: CLI_TIMEOUT_MS },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
        resolve({ code, stdout, stderr, ms: Date.now() - started });
      },
    );
  });
}

export interface ProgressLine {
  line: string;
  percent: number;
  done: number;
  total: number;
  unit: string;
}

/** The progress lines for `label` ("import", "reindex loading", ...) on stderr, in order. */
export function progressLines(stderr: string, label: string): ProgressLine[] {
  const re = /^(.+?) \[[# ]{30}\] (\d+)% (\d+)\/(\d+) \d+ (\w+)\/s(?:, \w+ left)?$/;
  const out: ProgressLine[] = [];
  for (const line of stderr.split('\n')) {
    const m = re.exec(line);
    if (m && m[1] === label)
      out.push({ line, percent: Number(m[2]), done: Number(m[3]), total: Number(m[4]), unit: m[5] });
  }
  return out;
}

/**
 * What every command's progress must look like in a log: no terminal control characters, counts that
 * only grow and end at the total with 100%, and no more lines than one per 5 s (plus the first and
 * the last) however many updates the job made. Returns a problem, or undefined.
 */
export function progressProblem(r: CliResult, label: string, total: number, unit: string): string | undefined {
  const lines = progressLines(r.stderr, label);
  if (lines.length === 0) return `no "${label}" progress on stderr:\n${r.stderr}`;
  if (/[\r\x1b]/.test(r.stderr)) return 'terminal control characters in a non-TTY stream';
  const last = lines[lines.length - 1];
  if (last.done !== total || last.total !== total || last.percent !== 100)
    return `last line is not ${total}/${total} 100%: ${last.line}`;
  if (lines.some((l, i) => i > 0 && l.done < lines[i - 1].done))
    return `counts go backwards: ${lines.map((l) => l.done).join(', ')}`;
  if (lines.some((l) => l.unit !== unit)) return `unit is not ${unit}/s: ${last.line}`;
  const allowed = 2 + Math.ceil(r.ms / 5000);
  if (lines.length > allowed) return `${lines.length} lines in ${r.ms} ms (at most ${allowed})`;
  if (lines.filter((l) => l.done === total).length > 1)
    return `the final state is shown twice:\n${lines.map((l) => l.line).join('\n')}`;
  return undefined;
}
