/**
 * Every repository path a comment or a document cites exists (issue 46): a path such as
 * `src/media/store/media-store.ts` in a comment, a doc or a bench note must name a file of the tree, from the
 * repository's root or from the citing file's folder. Placeholders (`NAME`, `NNN`, `<area>`, globs) and
 * generated outputs (git-ignored, such as bench/RESULTS.quick.md) are not citations of a file.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SCANNED = ['src', 'workers', 'test', 'bench', 'scripts', 'docs', 'tools', 'lib', 'README.md'];
const CITED =
  /(?<![\w./@-])((?:src|workers|test|bench|scripts|docs|es-mappings|tools|lib)\/[\w./-]*\.(?:ts|md|json|sql|cjs|mjs|js|sh|yml))\b/g;
const PLACEHOLDER = /[*<>{}]|\.\.\.|\b[A-Z]{3,}\b|^test\/foundation\//;

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', ...SCANNED], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => /\.(ts|mjs|cjs|js|md|sh)$/.test(f) && !f.endsWith('.d.ts') && fs.existsSync(path.join(ROOT, f)));
}

function ignored(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', ...paths], { cwd: ROOT, encoding: 'utf8' });
    return new Set(out.split('\n').filter(Boolean));
  } catch {
    return new Set(); // exit 1: none is ignored
  }
}

test('every repository path cited in the tree exists', (t) => {
  const missing: { where: string; cited: string }[] = [];
  // The foundation tests name made-up paths as fixtures of the checks they test.
  for (const file of trackedFiles().filter((f) => !f.startsWith('test/foundation/'))) {
    const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      for (const m of line.matchAll(CITED)) {
        const cited = m[1]!;
        if (PLACEHOLDER.test(cited)) continue;
        const fromRoot = fs.existsSync(path.join(ROOT, cited));
        const fromHere = fs.existsSync(path.join(ROOT, path.dirname(file), cited));
        if (!fromRoot && !fromHere) missing.push({ where: `${file}:${i + 1}`, cited });
      }
    });
  }
  const gone = ignored([...new Set(missing.map((m) => m.cited))]);
  const named = missing.filter((m) => !gone.has(m.cited)).map((m) => `${m.where}: ${m.cited}`);
  t.deepEqual(named, [], `cited paths that do not exist:\n${named.join('\n')}`);
});
