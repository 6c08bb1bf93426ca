import fs from 'node:fs';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { importDirectory } from '../posts/import.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';

const USAGE = `Usage: imgpost import DIR [--force] [--json]

Imports every JPEG, PNG, GIF, WebP and AVIF file under DIR (recursively) as a legacy post with no
owner. Files are copied; DIR is left as it was. Near-duplicates of existing posts are skipped.
Safe beside a running server; their thumbnails are queued for the server to make (or made when
first requested; \`imgpost rethumb --missing\` makes them without a server).

Options:
  --force   import near-duplicates too
  --json    print a JSON summary on stdout
  --help    this text

Progress goes to stderr. Exit status: 0 done, 1 some files were not images, 2 usage error.
`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('import', USAGE, {
    args,
    allowPositionals: true,
    options: { force: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const dir = positionals[0];
  if (positionals.length !== 1 || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    process.stderr.write(`imgpost import: give one existing directory\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig();
  const { openToolJob } = await jobsRole();
  const services = await openToolJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    const result = await importDirectory(services.postService, services.images.tmpDir, dir, {
      force: Boolean(values.force),
      progress: (total) => createProgress('import', total, { unit: 'files' }),
    });
    process.stderr.write(
      `imported ${result.imported}, skipped ${result.duplicates} near-duplicates, ${result.invalid.length} not images\n`,
    );
    for (const bad of result.invalid) process.stderr.write(`  ${bad.file}: ${bad.reason}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result.invalid.length > 0 ? 1 : 0;
  } finally {
    await services.close();
  }
}
