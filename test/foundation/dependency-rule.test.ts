/**
 * The dependency rule (docs/architecture.md; the layer list in .dependency-cruiser.cjs), checked
 * by dependency-cruiser: the tree obeys it, and the same configuration refuses an upward import,
 * a sideways import between siblings and a loop between files, shown on small trees of their own
 * so the check itself cannot silently pass everything.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

// The CLI run by this very node (no shell, no .bin shims), as test/run-suite.ts runs ava.
const pkgDir = path.join(ROOT, 'node_modules', 'dependency-cruiser');
const bin = path.join(
  pkgDir,
  (JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin
    .depcruise,
);

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string, config: string, ...roots: string[]): Violation[] {
  const run = spawnSync(process.execPath, [bin, ...roots, '--config', config, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (!run.stdout) throw new Error(`depcruise failed (${run.status}): ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

/** A throwaway tree with the project's configuration and the given files. */
function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'imgpost-deprule-'));
  fs.copyFileSync(CONFIG, path.join(dir, '.dependency-cruiser.cjs'));
  fs.writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        allowImportingTsExtensions: true,
        noEmit: true,
      },
    }),
  );
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), body);
  }
  return dir;
}

const describe = (vs: Violation[]) => vs.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).join('\n');

test('the source tree obeys the dependency rule, and bench/ has no import loop', (t) => {
  const violations = cruise(ROOT, CONFIG, 'src', 'workers', 'lib', 'tools', 'bench');
  t.deepEqual(violations, [], describe(violations));
});

/**
 * One throwaway tree holds the three kinds of breach (each depcruise run costs seconds of CPU):
 * kernel → posts runs uphill, search → tags is sideways between siblings, posts/a ↔ posts/b is a
 * loop, posts/service → posts/routes makes a service depend on HTTP, and bench/lib/section ↔
 * bench/dashboard is a loop in the bench tool.
 */
test('the same configuration refuses an upward import, a sibling import, a file loop (in bench/ too) and a service importing routes', (t) => {
  const dir = tree({
    'src/kernel/post-record.ts': "import { upload } from '../posts/service.ts';\nexport const record = upload;\n",
    'src/posts/service.ts': "import { router } from './routes.ts';\nexport const upload = router;\n",
    'src/posts/routes.ts': 'export const router = 1;\n',
    'src/search/service.ts': "import { tag } from '../tags/service.ts';\nexport const search = tag;\n",
    'src/tags/service.ts': 'export const tag = 1;\n',
    'src/posts/a.ts': "import { b } from './b.ts';\nexport const a = () => b;\n",
    'src/posts/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
    'bench/lib/section.ts': "import { dashboard } from '../dashboard.ts';\nexport const section = () => dashboard;\n",
    'bench/dashboard.ts': "import { section } from './lib/section.ts';\nexport const dashboard = () => section;\n",
  });
  try {
    const violations = cruise(dir, '.dependency-cruiser.cjs', 'src', 'bench');
    const has = (rule: string, to?: string) =>
      violations.some((v) => v.rule.name === rule && (to === undefined || v.to === to));
    t.true(has('layer:src/kernel', 'src/posts/service.ts'), `upward\n${describe(violations)}`);
    t.true(has('layer:src/search', 'src/tags/service.ts'), `sideways\n${describe(violations)}`);
    const loopIn = (root: string) => violations.some((v) => v.rule.name === 'no-circular' && v.from.startsWith(root));
    t.true(loopIn('src/'), `loop\n${describe(violations)}`);
    t.true(loopIn('bench/'), `loop in bench/\n${describe(violations)}`);
    t.true(has('service-not-http'), `service → routes\n${describe(violations)}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the same configuration refuses a feature importing a development service, and lets a composition root', (t) => {
  const dev =
    "import { startManagedNode } from '../../tools/dev-services/elasticsearch/managed-node.ts';\n" +
    'export const x = startManagedNode;\n';
  const dir = tree({
    'tools/dev-services/elasticsearch/managed-node.ts': 'export const startManagedNode = 1;\n',
    'src/search/engine.ts': dev,
    'src/roles/wiring.ts': dev,
    'src/cli/es-command.ts': dev,
  });
  try {
    const violations = cruise(dir, '.dependency-cruiser.cjs', 'src');
    const from = (file: string) => violations.filter((v) => v.from === file).map((v) => v.rule.name);
    t.deepEqual(from('src/search/engine.ts'), ['dev-services-from-entry-points'], describe(violations));
    t.deepEqual(from('src/roles/wiring.ts'), [], describe(violations));
    t.deepEqual(from('src/cli/es-command.ts'), [], describe(violations));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
