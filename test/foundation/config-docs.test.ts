/**
 * The configuration is declared once (src/config/settings.ts, s3-settings.ts, dev-service-settings.ts): the reference
 * in docs/ is generated from the declarations and must match them, and no code but the configuration module reads the
 * environment.
 */
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { ALL_SETTINGS, REFERENCE_COMMAND, REFERENCE_FILE, renderConfigReference } from '../../src/config/reference.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

test(`${REFERENCE_FILE} is what the declarations give`, (t) => {
  const file = path.join(ROOT, REFERENCE_FILE);
  const committed = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const stale = `${REFERENCE_FILE} is stale: run \`${REFERENCE_COMMAND}\` and commit the result`;
  t.true(committed === renderConfigReference(), stale);
});

test('each variable is declared once, with a line of documentation', (t) => {
  const names = ALL_SETTINGS.map((s) => s.env);
  t.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
  );
  const undocumented = ALL_SETTINGS.filter((s) => !s.declaration.doc.trim() || s.declaration.doc.includes('\n'));
  t.deepEqual(
    undocumented.map((s) => s.env),
    [],
  );
});

test('only the configuration module reads process.env', (t) => {
  const readers: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.ts$/.test(entry.name) && fs.readFileSync(file, 'utf8').includes('process.env')) {
        readers.push(path.relative(ROOT, file));
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  walk(path.join(ROOT, 'workers'));
  t.deepEqual(readers, ['src/config.ts']);
});
