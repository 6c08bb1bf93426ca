import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';
import { reindex } from '../search/reindex.ts';

const USAGE = `Usage: imgpost reindex [--batch N] [--json]

Builds a fresh versioned posts index from SQLite (DATA_DIR), then swaps the alias
<ELASTICSEARCH_INDEX_PREFIX>-posts to it and returns. Searches keep working throughout, and
running servers keep writing to both indices until the swap. The new index gets
ELASTICSEARCH_REPLICAS replicas, and the swap waits (up to a minute) for them to be copied.

The previous index is recorded in DATA_DIR and retired after the command returns: the running
server closes it a second after the swap and deletes it a few seconds later (without a server,
the next start or the next reindex does).

Options:
  --batch N   posts per bulk request (default 1000)
  --json      print a JSON summary on stdout
  --help      this text

Progress goes to stderr.
`;

export async function run(args: string[]): Promise<number> {
  const parsed = parseCommand('reindex', USAGE, {
    args,
    options: { batch: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const batch = values.batch === undefined ? 1000 : Number(values.batch);
  if (!Number.isInteger(batch) || batch < 1 || batch > 10_000) {
    process.stderr.write('imgpost reindex: --batch must be an integer from 1 to 10000\n');
    return 2;
  }
  const config = loadConfig();
  // Only warnings: the progress bar is the command's own output on stderr.
  const { openIndexJob } = await jobsRole();
  const services = await openIndexJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    const result = await reindex(services, { batch, progress: (total) => createProgress('reindex', total) });
    const secs = (result.ms / 1000).toFixed(1);
    process.stderr.write(
      `reindexed ${result.posts} posts into ${result.index} in ${secs}s (${result.caughtUp} later changes replayed)\n`,
    );
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } finally {
    await services.close();
  }
}
