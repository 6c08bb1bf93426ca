/**
 * Writes the configuration reference (docs/configuration.md) from the declarations in
 * src/config/settings.ts: `npm run docs:config`. test/foundation/config-docs.test.ts checks that the
 * committed file is what this writes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { REFERENCE_FILE, renderConfigReference } from '../src/config/reference.ts';

const file = path.resolve(import.meta.dirname, '..', REFERENCE_FILE);
fs.mkdirSync(path.dirname(file), { recursive: true });
fs.writeFileSync(file, renderConfigReference());
process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
