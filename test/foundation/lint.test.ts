/**
 * The linter and the formatter (`npm run lint`; configured by eslint.config.js and biome.json): the
 * tree passes both, and the same configuration refuses a line over 120 characters (code or comment),
 * an unused variable, a ternary whose branches are the same, and code the formatter would lay out
 * differently, shown on small probes so the check itself cannot silently pass everything.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';

const ROOT = path.resolve(import.meta.dirname, '../..');

// Biome's CLI run by this very node (no shell, no .bin shims), as test/run-suite.ts runs ava.
const biomeDir = path.join(ROOT, 'node_modules', '@biomejs', 'biome');
const biomePackage = JSON.parse(fs.readFileSync(path.join(biomeDir, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
};
const biomeBin = path.join(biomeDir, biomePackage.bin.biome);

const biome = (args: string[], input?: string) =>
  spawnSync(process.execPath, [biomeBin, ...args], { cwd: ROOT, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

// The cache is the one `npm run lint` keeps: a second run reads only the files that changed.
const eslint = new ESLint({
  cwd: ROOT,
  cache: true,
  cacheLocation: path.join(ROOT, 'node_modules', '.cache', 'eslint') + path.sep,
  cacheStrategy: 'content',
});

test('the tree passes the linter', async (t) => {
  const results = await eslint.lintFiles(['.']);
  const problems = results.flatMap((r) =>
    r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line}:${m.column} ${m.ruleId ?? ''} ${m.message}`),
  );
  const shown = problems.slice(0, 30).join('\n');
  t.is(problems.length, 0, `${shown}${problems.length > 30 ? '\n…' : ''}\n(\`npm run lint\` lists them all)`);
});

test('the tree is formatted', (t) => {
  const run = biome(['format', '--reporter=summary', '.']);
  t.is(run.status, 0, `${run.stdout}${run.stderr}\n(\`npm run format\` lays them out)`);
});

test('the linter refuses a long line, a long comment, an unused variable, a ternary with equal branches', async (t) => {
  const long = `export const n = ${'1 + '.repeat(25)}123;`;
  t.is(long.length, 121);
  const probe = [
    long,
    `// ${'word '.repeat(24)}`,
    'export function f(a: number, b: { size: number }): number {',
    '  const unused = a;',
    '  return a > 0 ? b.size : b.size;',
    '}',
    '',
  ].join('\n');
  const [result] = await eslint.lintText(probe, { filePath: path.join(ROOT, 'src', 'lint-probe.ts') });
  const found = result.messages.map((m) => `${m.line} ${m.ruleId}`);
  t.deepEqual(found.sort(), [
    '1 @stylistic/max-len',
    '2 @stylistic/max-len',
    '4 @typescript-eslint/no-unused-vars',
    '5 sonarjs/no-all-duplicated-branches',
  ]);
});

test('the formatter refuses code laid out differently and leaves formatted code alone', (t) => {
  const formatted = "export const o = { a: 1, b: 'two' };\n";
  const run = biome(['format', '--stdin-file-path=src/format-probe.ts'], 'export const o = {a:1,b:"two"}\n');
  t.is(run.status, 0, run.stderr);
  t.is(run.stdout, formatted);
  t.is(biome(['format', '--stdin-file-path=src/format-probe.ts'], formatted).stdout, formatted);
});
