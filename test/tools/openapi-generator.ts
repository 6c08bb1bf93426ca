/**
 * openapi-generator's CLI jar, fetched once from Maven Central with `mvn dependency:copy` and kept
 * under ~/.cache/imgpost/openapi-generator (like the Elasticsearch distribution,
 * tools/dev-services/elasticsearch/distribution.ts): the test that generates a client from the served
 * document (test/ecosystem/openapi-tools.test.ts) then starts in seconds. `npm test`'s pretest runs this file
 * so a fresh CI box downloads it (about 30 MB) before the suite's clock starts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findJava } from '../../tools/dev-services/elasticsearch/distribution.ts';
import { findMaven, lastLines } from '../../tools/dev-services/shared/jvm-tools.ts';

export const OPENAPI_GENERATOR_VERSION = '7.17.0';
const ARTIFACT = `org.openapitools:openapi-generator-cli:${OPENAPI_GENERATOR_VERSION}:jar`;

export const cacheDir = () =>
  process.env.IMGPOST_TOOLS_CACHE ?? path.join(os.homedir(), '.cache', 'imgpost', 'openapi-generator');
export const jarPath = () => path.join(cacheDir(), `openapi-generator-cli-${OPENAPI_GENERATOR_VERSION}.jar`);

/** The java binary to run the jar with (openapi-generator needs Java 11 or newer; ES needs 17). */
export function javaBinary(): string {
  const java = findJava(() => {});
  if (!java) throw new Error('no JDK 17 or newer found (set JAVA_HOME)');
  return path.join(java.home, 'bin', 'java');
}

export interface Outcome {
  code: number | null;
  stdout: string;
  output: string;
}

/** Runs a command to its end; stdout alone and stdout with stderr interleaved. */
export function exec(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      output += b.toString();
    });
    child.stderr.on('data', (b: Buffer) => {
      output += b.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, output }));
  });
}

/** exec, failing with the end of the output unless the command succeeds. */
export async function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const { code, output } = await exec(cmd, args, opts);
  if (code !== 0) throw new Error(`${path.basename(cmd)} exited with ${code}:\n${lastLines(output, 40).join('\n')}`);
  return output;
}

/** Idempotent; concurrent callers each download into a private directory and rename into place. */
export async function ensureGeneratorJar(log: (line: string) => void = () => {}): Promise<string> {
  const jar = jarPath();
  if (fs.existsSync(jar)) return jar;
  const mvn = findMaven();
  if (!mvn) throw new Error(`${jar} is missing and Maven (mvn) is not installed to fetch ${ARTIFACT}`);
  const partial = path.join(cacheDir(), `.partial-${process.pid}`);
  await fsp.mkdir(partial, { recursive: true });
  try {
    log(`downloading ${ARTIFACT} from Maven Central…`);
    const t0 = Date.now();
    await run(mvn, ['-q', '-B', 'dependency:copy', `-Dartifact=${ARTIFACT}`, `-DoutputDirectory=${partial}`], {
      cwd: partial,
      env: { ...process.env, JAVA_HOME: path.dirname(path.dirname(javaBinary())) },
    });
    await fsp.rename(path.join(partial, path.basename(jar)), jar);
    log(`downloaded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await fsp.rm(partial, { recursive: true, force: true });
  }
  return jar;
}

// `tsx test/tools/openapi-generator.ts` (pretest): fetch, but never fail the suite here; the test
// that needs the jar reports a failed download itself.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  ensureGeneratorJar((line) => console.log(`openapi-generator: ${line}`)).then(
    (jar) => console.log(`openapi-generator: ${jar}`),
    (err: Error) =>
      console.warn(
        `openapi-generator: not fetched (${err.message}); test/ecosystem/openapi-tools.test.ts will try again`,
      ),
  );
}
