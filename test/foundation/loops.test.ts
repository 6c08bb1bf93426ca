import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { LOOPS } from '../../src/roles/loops.ts';
import { startTestApp } from '../helpers/app.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The first column of docs/architecture.md's table under "Background work in the server". */
function documentedLoops(): string[] {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const section = doc.split('## Background work in the server')[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| loop |'))
    .map((line) => line.split('|')[1]!.trim());
}

test('the docs table of background loops names exactly the loops of the one list, in its order', (t) => {
  t.deepEqual(
    documentedLoops(),
    LOOPS.map((l) => l.name),
  );
});

test('a test app runs the loops of the one list its configuration switches on, as the server does', async (t) => {
  const app = await startTestApp({ ROBUST_DESCRIPTORS: '1' });
  t.teardown(() => app.close());
  t.deepEqual(
    app.services.loops,
    LOOPS.map((l) => l.name).filter((name) => name !== 'thumbnailer' || app.services.config.backgroundThumbnails),
  );
});

test('no loop is started outside the one list', (t) => {
  // Every `.start()` of a runner in the roles goes through src/roles/loops.ts.
  const roles = path.join(ROOT, 'src/roles');
  const starts = fs
    .readdirSync(roles)
    .filter((f) => f !== 'loops.ts')
    .flatMap((f) =>
      fs
        .readFileSync(path.join(roles, f), 'utf8')
        .split('\n')
        .map((line, i) => ({ where: `src/roles/${f}:${i + 1}`, line }))
        // the one generic start, of each loop the list built
        .filter(({ line }) => /\.start\(\)/.test(line) && !/\bloop\.start\(\)/.test(line)),
    );
  const main = fs.readFileSync(path.join(ROOT, 'src/main.ts'), 'utf8');
  t.deepEqual(starts, []);
  t.false(/\.start\(\)/.test(main), 'src/main.ts starts no loop of its own');
});
