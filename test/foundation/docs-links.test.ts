/**
 * The documentation a clone has is whole: every relative link in README.md and docs/ names a file or
 * folder of the repository (and, for a `#fragment` into a Markdown file, one of its headings), and
 * every reference the code makes to the decisions (docs/decisions.md §N) names a section that exists.
 * References to documents outside the repository (the bare `decisions §N` / `spec §N` of old) fail;
 * scripts/rewrite-doc-refs.mjs turns them into references inside it.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Markdown files the links of which must resolve: the README and everything under docs/. */
function markdownFiles(): string[] {
  const out = ['README.md'];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (entry.name.endsWith('.md')) out.push(rel);
    }
  };
  walk('docs');
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(markdown).split('\n')) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Fenced blocks and inline code hold examples, not links. */
const withoutCode = (markdown: string): string =>
  markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');

/** The broken relative links of one Markdown text, found from `file` (a path relative to the root). */
function brokenLinks(
  file: string,
  markdown: string,
  exists: (rel: string) => boolean,
  readText: (rel: string) => string,
): string[] {
  const broken: string[] = [];
  const text = withoutCode(markdown);
  for (const m of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = m[1];
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    const [rawPath, fragment] = target.split('#', 2);
    const rel = rawPath === '' ? file : path.normalize(path.join(path.dirname(file), decodeURIComponent(rawPath)));
    if (rel.startsWith('..') || path.isAbsolute(rel)) {
      broken.push(`${file}: ${target} (outside the repository)`);
      continue;
    }
    if (!exists(rel)) {
      broken.push(`${file}: ${target} (no such file)`);
      continue;
    }
    if (fragment && rel.endsWith('.md') && !anchorsOf(rel === file ? markdown : readText(rel)).has(fragment)) {
      broken.push(`${file}: ${target} (no heading #${fragment})`);
    }
  }
  return broken;
}

const onDisk = (rel: string) => fs.existsSync(path.join(ROOT, rel));
const readOnDisk = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');

test('every relative link in README.md and docs/ resolves inside the repository', (t) => {
  const files = markdownFiles();
  t.true(files.includes(path.join('docs', 'decisions.md')), 'docs/decisions.md exists');
  const broken = files.flatMap((file) => brokenLinks(file, readOnDisk(file), onDisk, readOnDisk));
  t.deepEqual(broken, [], broken.join('\n'));
});

test('the link check refuses a missing file, a missing heading and a path out of the repository', (t) => {
  const files: Record<string, string> = { 'docs/a.md': '# Title\n\n## 2. Second part\n', 'docs/b.md': '' };
  const exists = (rel: string) => rel in files || rel === 'docs';
  const read = (rel: string) => files[rel] ?? '';
  const links = [
    '[ok](a.md#2-second-part)',
    '[ok](b.md)',
    '[ok](#local)',
    '[ok](https://example.org/x)',
    '`[not a link](nowhere.md)`',
    '[gone](missing.md)',
    '[no heading](a.md#third)',
    '[outside](../../elsewhere/spec.md)',
  ].join('\n');
  t.deepEqual(brokenLinks('docs/b.md', `# Local\n${links}\n`, exists, read), [
    'docs/b.md: missing.md (no such file)',
    'docs/b.md: a.md#third (no heading #third)',
    'docs/b.md: ../../elsewhere/spec.md (outside the repository)',
  ]);
});

/** The files of the code (not the docs), as git knows them. */
function codeFiles(): string[] {
  const roots = ['src', 'workers', 'test', 'scripts', 'bench'];
  const listed = execFileSync('git', ['ls-files', '-z', ...roots], { cwd: ROOT, encoding: 'utf8' });
  return (
    listed
      .split('\0')
      .filter((f) => /\.(ts|tsx|mts|cts|js|mjs|cjs|sh|sql|css|html)$/.test(f))
      // The rewriting script names the old forms in order to rewrite them.
      .filter((f) => f !== 'scripts/rewrite-doc-refs.mjs')
      .filter((f) => fs.existsSync(path.join(ROOT, f)))
  );
}

test('every reference the code makes to the decisions names a section of docs/decisions.md', (t) => {
  const sections = new Set([...readOnDisk('docs/decisions.md').matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
  // Built from parts, so this file's own pattern is not a reference.
  const outside = new RegExp(`\\b(?:[Dd]ecisions|[Ss]pec) ${'§'}§?\\d`);
  const cited = new RegExp(`docs/decisions\\.md ${'§'}(§?)(\\d+)(?:[-–](\\d+))?((?:,? ${'§'}\\d+)*)`, 'g');
  const problems: string[] = [];
  for (const file of codeFiles()) {
    const lines = readOnDisk(file).split('\n');
    lines.forEach((line, i) => {
      if (outside.test(line)) problems.push(`${file}:${i + 1}: points outside the repository: ${line.trim()}`);
      for (const m of line.matchAll(cited)) {
        const listed = [...m[4].matchAll(/\d+/g)].map((n) => n[0]);
        const numbers = [m[2], m[3], ...listed].filter((n): n is string => n !== undefined);
        for (const n of numbers) {
          if (!sections.has(n)) problems.push(`${file}:${i + 1}: docs/decisions.md has no §${n}`);
        }
      }
    });
  }
  t.deepEqual(problems, [], problems.join('\n'));
});
