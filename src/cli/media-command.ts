import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { migrateMedia, MigrationRefused } from '../media/migrate.ts';
import { StoreUnavailableError } from '../media-store/media-store.ts';
import { storeName } from '../media-store/store-state.ts';
import { jobsRole } from './jobs-role.ts';
import { parseByteRate } from '../util/byte-rate.ts';
import { parseCommand } from './args.ts';
import { createProgress } from './progress.ts';

const USAGE = `Usage: imgpost media migrate --to STORE [--max-rate RATE] [--parallel N] [--json]
       imgpost media status [--json]

migrate: moves every post's image and thumbnails to another media store while the server keeps
serving and accepting uploads. STORE is \`local\` (DATA_DIR/images) or s3://bucket/prefix (with the
S3_* settings of the environment; the bucket must exist). First the new store is recorded as the
active one in the database: the server writes new images there from its next request and reads
what is not copied yet from the old store. Then every object is copied and checked (the sha256 of
the source against the bytes read back from the new store). Killed or failed, run it again with the
same --to: it resumes. When it ends the old store is no longer used; delete it yourself.
The server and later starts use the recorded store, whatever MEDIA_STORE says: set MEDIA_STORE to
STORE too. Going back during a migration: --to the old store.

status: the store in use and the migration under way, if any.

Options:
  --to STORE        local, or s3://bucket/prefix
  --max-rate RATE   read at most RATE bytes per second from the old store (suffix k, M or G: 20M);
                    default unlimited
  --parallel N      objects copied at once, 1 to 64 (default 4)
  --json            print a JSON summary on stdout
  --help            this text

Progress goes to stderr. Exit status: 0 done, 1 refused (the store already in use, another migration
under way, a store that does not answer) or failed part-way (run it again), 2 usage error or an
unknown STORE.
`;

export async function run(args: string[]): Promise<number> {
  const options = {
    to: { type: 'string' },
    'max-rate': { type: 'string' },
    parallel: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const parsed = parseCommand('media', USAGE, { args, allowPositionals: true, options }, 'subcommand');
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const usageError = (message: string) => {
    process.stderr.write(`imgpost media: ${message}\n\n${USAGE}`);
    return 2;
  };
  const sub = positionals[0];
  if (sub !== 'migrate' && sub !== 'status') return usageError(`unknown subcommand "${sub}"`);
  const config = loadConfig();
  if (sub === 'status') return status(config, values.json === true);

  if (values.to === undefined) return usageError('--to STORE is missing');
  let to: string;
  try {
    to = storeName(values.to);
  } catch (err) {
    return usageError(`--to ${JSON.stringify(values.to)}: ${(err as Error).message}`);
  }
  const rate = values['max-rate'] === undefined ? 0 : parseByteRate(values['max-rate']);
  if (values['max-rate'] !== undefined && !(rate >= 1024))
    return usageError('--max-rate must be a byte rate of at least 1k, like 500k or 20M');
  const parallel = values.parallel === undefined ? 4 : Number(values.parallel);
  if (!(Number.isInteger(parallel) && parallel >= 1 && parallel <= 64))
    return usageError('--parallel must be an integer from 1 to 64');

  const { openMediaMigrationJob } = await jobsRole();
  const job = openMediaMigrationJob(config, createLogger(config.logLevel === 'debug' ? 'debug' : 'warn'));
  try {
    // The S3_* settings are checked when the store is opened: a ConfigError is exit 2, as for the server.
    job.stores.byName(to);
    const result = await migrateMedia(job, {
      to,
      maxBytesPerSecond: rate,
      parallel,
      progress: (total) => createProgress('media migrate', total, { unit: 'posts' }),
      note: (line) => process.stderr.write(`imgpost media: ${line}\n`),
    });
    const mb = (result.bytes / 1024 / 1024).toFixed(1);
    process.stderr.write(
      `migrated the images from ${result.from} to ${result.to} in ${(result.ms / 1000).toFixed(1)}s: ${result.posts} posts checked, ` +
        `${result.copied} objects copied (${mb} MB), ${result.alreadyThere} already there; the server now uses ${result.to} alone` +
        ` (set MEDIA_STORE=${result.to === 'local' ? 'local' : result.to}; the old store can be deleted)\n`,
    );
    if (result.missingImages.length > 0)
      process.stderr.write(
        `${result.missingImages.length} posts have no image in either store: ${result.missingImages.slice(0, 10).join(', ')}\n`,
      );
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof MigrationRefused) {
      process.stderr.write(`imgpost media: ${err.message}\n`);
      return 1;
    }
    if (err instanceof StoreUnavailableError) {
      process.stderr.write(`imgpost media: ${err.describe()}; nothing is lost: run the same command again to resume\n`);
      return 1;
    }
    throw err;
  } finally {
    job.close();
  }
}

async function status(config: ReturnType<typeof loadConfig>, json: boolean): Promise<number> {
  const { openMediaMigrationJob } = await jobsRole();
  const job = openMediaMigrationJob(config, createLogger('warn'));
  try {
    const state = job.states.get();
    const summary = {
      active: state?.active ?? job.stores.configured,
      configured: job.stores.configured,
      migratingFrom: state?.migratingFrom ?? null,
      copied: state?.copied ?? 0,
      cursorSeq: state?.cursorSeq ?? 0,
      uptoSeq: state?.uptoSeq ?? 0,
      finishedAt: state?.finishedAt ?? null,
    };
    if (json) process.stdout.write(`${JSON.stringify(summary)}\n`);
    else {
      process.stdout.write(
        `store in use: ${summary.active}${summary.active === summary.configured ? '' : ` (MEDIA_STORE says ${summary.configured}: set it to ${summary.active})`}\n`,
      );
      if (summary.migratingFrom)
        process.stdout.write(
          `migration from ${summary.migratingFrom} under way: ${summary.copied} objects copied, posts up to #${summary.cursorSeq} of #${summary.uptoSeq}; run \`imgpost media migrate --to ${summary.active}\` to finish it\n`,
        );
    }
    return 0;
  } finally {
    job.close();
  }
}
