import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';
import { THUMBNAIL_SIZES } from '../kernel/media-names.ts';
import { rethumb } from '../thumbnails/rethumb.ts';

const USAGE = `Usage: imgpost rethumb [--missing] [--json]

Regenerates the WebP thumbnails (${THUMBNAIL_SIZES.join(' and ')} px on the long side) of every post
from its stored image, in DATA_DIR. Safe to run beside a live server. Elasticsearch is not needed.

Options:
  --missing   only posts with a thumbnail file missing (faster after an upgrade)
  --json      print a JSON summary on stdout
  --help      this text

Progress goes to stderr. Exit status: 0 done, 1 some posts failed, 2 usage error.
`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('rethumb', USAGE, {
    args,
    options: { missing: { type: 'boolean' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const config = loadConfig();
  const { openFilesJob } = await jobsRole();
  const job = openFilesJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    const result = await rethumb(job, {
      missingOnly: values.missing === true,
      concurrency: config.hashWorkers,
      progress: (total) => createProgress('rethumb', total, { unit: 'posts' }),
    });
    process.stderr.write(
      `regenerated thumbnails of ${result.regenerated} of ${result.posts} posts` +
        `${result.skipped ? `, ${result.skipped} already complete` : ''}${result.gone ? `, ${result.gone} deleted meanwhile` : ''}` +
        `${result.failed.length ? `, ${result.failed.length} failed` : ''}\n`,
    );
    for (const f of result.failed.slice(0, 20)) process.stderr.write(`  ${f.postId}: ${f.reason}\n`);
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result.failed.length > 0 ? 1 : 0;
  } finally {
    await job.close();
  }
}
