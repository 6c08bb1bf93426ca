#!/usr/bin/env node
/**
 * Rewrites references to documents outside the repository into references inside it, touching only
 * the reference text of each line, so it can be re-run after merging a branch that still has some:
 *
 *   decisions §8, (decisions §13), decisions §§14-15, Decisions §15   → docs/decisions.md §…
 *   spec §8, Spec §8, (spec §4.9, decisions §6), spec §4.1-4.3         → docs/decisions.md §… (the section
 *                                                                       of docs/decisions.md that now holds
 *                                                                       that rule of the interface)
 *   README, "Runtime"; README "Backups"; README, "Architecture"; ...  → the docs/ file that now holds it
 *
 * Usage: node scripts/rewrite-doc-refs.mjs [--check] [FILE ...]
 *   With no FILE: every file git knows under src, workers, test, scripts, bench, docs and bin, plus
 *   .dependency-cruiser.cjs, Dockerfile, .ci/run, redocly.yaml and docker-compose.yml, except the
 *   bench's generated results (bench/RESULTS.md, bench JSON) and docs/decisions.md itself. Name
 *   those files to rewrite them too.
 *   --check: change nothing; list the lines that would change and exit 1 if there are any.
 * Exit 2 when a `spec §N` has no known home (add it to SPEC below).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const DECISIONS = 'docs/decisions.md';

/** Where each section of the interface specification the code cites now lives in docs/decisions.md. */
const SPEC = {
  2: () => [4], // resource fields: a post's times
  3: () => [8], // a webhook's states
  4.1: () => [2], // login
  4.2: () => [2], // the account
  4.3: (line) => (/409|near-duplicate/i.test(line) ? [4] : [2]), // reset-key (once cited for the 409 body)
  4.4: () => [4],
  4.5: () => [4],
  4.6: () => [4],
  4.7: () => [4],
  4.8: () => [4],
  4.9: () => [6],
  '4.10': () => [5],
  4.11: () => [7],
  4.12: () => [8],
  5: () => [2], // authentication
  6: () => [8], // events, the webhook payload
  7: () => [3], // errors
  8: (line, file) => (/webhook|invocation|deliver/i.test(`${file} ${line}`) ? [8] : [4]), // limits
};
const SPEC_ORDER = Object.keys(SPEC).sort((a, b) => {
  const [a1, a2 = 0] = a.split('.').map(Number);
  const [b1, b2 = 0] = b.split('.').map(Number);
  return a1 - b1 || a2 - b2;
});

/** Old README sections (their titles as the code quoted them) and where their content lives now. */
const README = [
  [/^Runtime\b/, 'docs/operations/runtime.md'],
  [/^(Architecture|How a post flows|Roles\b|Where things live)/, 'docs/architecture.md'],
  [/^Backups\b/, 'docs/operations/backups.md'],
  [/^(Serving|Images on S3)/, 'docs/operations/object-storage.md'],
  [/^Benchmark/, 'docs/operations/benchmarks.md'],
  [/^(Running against a remote|Running on an Elasticsearch)/, 'docs/operations/elasticsearch.md'],
  [/^Upgrading/, 'docs/operations/upgrading.md'],
  [/^Bounded growth/, 'docs/operations/retention.md'],
  [/^Command line/, 'docs/operations/command-line.md'],
  [/^Configuration/, 'docs/configuration.md'],
  [/^OpenAPI/, 'docs/api.md'],
  [/^Robust near-duplicates/, 'docs/robust-near-duplicates.md'],
  [/^(Tag governance|Moderation)/, `${DECISIONS} §15`],
  [/^Gallery/, `${DECISIONS} §12`],
  [/^People/, `${DECISIONS} §14`],
  [/^Webhook delivery/, `${DECISIONS} §8`],
];

const unmapped = [];

/** One spec item (`4.9`, `4.1-4.3`, `4.1–4.3`, `8`) as docs/decisions.md section numbers. */
function specSections(item, line, file) {
  const [from, to = from] = item.split(/[-–]/);
  const first = SPEC_ORDER.indexOf(from);
  const last = SPEC_ORDER.indexOf(to);
  if (first < 0 || last < first) {
    unmapped.push(`${file}: spec §${item}: ${line.trim()}`);
    return undefined;
  }
  return SPEC_ORDER.slice(first, last + 1).flatMap((key) => SPEC[key](line, file));
}

const NUM = String.raw`\d+(?:\.\d+)?(?:[-–]\d+(?:\.\d+)?)?`;
const KIND = String.raw`(?:[Ss]pec|[Dd]ecisions)`;
// A run of references that starts with a spec one: `spec §4.10, decisions §5, §16`.
const SPEC_RUN = new RegExp(String.raw`(?<![\w/.])[Ss]pec §(${NUM})((?:, (?:${KIND} )?§${NUM})*)`, 'g');
const RUN_ITEM = new RegExp(String.raw`(?:(${KIND}) )?§(${NUM})`, 'g');
// What is left: a reference to the decisions alone, in whatever form (§8, §§14-15, §6/§7).
const DECISIONS_REF = /(?<![\w/.])(?:spec and )?[Dd]ecisions §(?=§?\d)/g;
const README_QUOTED = /README(?:'s)?[,:]? ?"([^"]+)"/g;
const README_BARE = /README, (Serving|Runtime|Backups|Architecture)\b/g;

function rewriteLine(line, file) {
  let out = line.replace(SPEC_RUN, (whole, firstItem, rest) => {
    const numbers = [];
    let kind = 'spec';
    const items = [['spec', firstItem], ...[...rest.matchAll(RUN_ITEM)].map((m) => [m[1], m[2]])];
    for (const [k, item] of items) {
      if (k) kind = k.toLowerCase();
      if (kind === 'spec') {
        const mapped = specSections(item, line, file);
        if (!mapped) return whole;
        numbers.push(...mapped);
      } else {
        const [from, to = from] = item.split(/[-–]/).map(Number);
        for (let n = from; n <= to; n++) numbers.push(n);
      }
    }
    const unique = [...new Set(numbers)].sort((a, b) => a - b);
    return `${DECISIONS} §${unique.join(', §')}`;
  });
  out = out.replace(DECISIONS_REF, `${DECISIONS} §`);
  const readmeTarget = (title) => README.find(([pattern]) => pattern.test(title))?.[1];
  out = out.replace(README_QUOTED, (whole, title) => readmeTarget(title) ?? whole);
  out = out.replace(README_BARE, (whole, title) => readmeTarget(title) ?? whole);
  return out;
}

// The record itself, the generated configuration reference, this script (it names the old forms) and
// the bench's generated results.
const SKIPPED = new Set([DECISIONS, 'docs/configuration.md', 'scripts/rewrite-doc-refs.mjs', 'bench/RESULTS.md']);

function defaultFiles() {
  const roots = ['src', 'workers', 'test', 'scripts', 'bench', 'docs', 'bin'];
  roots.push('.dependency-cruiser.cjs', 'Dockerfile', '.ci/run', 'redocly.yaml', 'docker-compose.yml');
  const listed = execFileSync('git', ['ls-files', '-z', '--', ...roots], { encoding: 'utf8' });
  return listed
    .split('\0')
    .filter(Boolean)
    .filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs|sh|sql|css|html|md|yaml|yml)$/.test(f) || !f.includes('.', 1))
    .filter((f) => fs.existsSync(f) && !SKIPPED.has(f) && !(f.startsWith('bench/') && f.endsWith('.json')));
}

const args = process.argv.slice(2);
const check = args.includes('--check');
const named = args.filter((a) => a !== '--check');
const files = named.length > 0 ? named : defaultFiles();

let changedLines = 0;
for (const file of files) {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  let changed = false;
  lines.forEach((line, i) => {
    const next = rewriteLine(line, file);
    if (next === line) return;
    changed = true;
    changedLines++;
    if (check) process.stdout.write(`${file}:${i + 1}: ${next.trim()}\n`);
    lines[i] = next;
  });
  if (changed && !check) fs.writeFileSync(file, lines.join('\n'));
}

for (const u of unmapped) process.stderr.write(`no home for ${u}\n`);
const verb = check ? 'would change' : 'rewritten';
process.stderr.write(`${changedLines} line(s) ${verb} in ${files.length} file(s) read\n`);
process.exit(unmapped.length > 0 ? 2 : check && changedLines > 0 ? 1 : 0);
