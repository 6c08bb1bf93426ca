import { backup } from '../backup/backup.ts';
import { parseByteRate } from '../util/byte-rate.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';

const USAGE = `Usage: imgpost backup DEST [--include-secrets] [--max-rate RATE] [--keep N] [--json]

Takes a consistent snapshot of DATA_DIR into the directory DEST while the server keeps running:
the database (SQLite's online backup API), then every image and thumbnail it references, then a
manifest with sizes and sha256 checksums, written last. The snapshot becomes DEST/snapshots/<time>
and DEST/latest names it only once it is complete; a killed backup leaves nothing restore accepts.
Files unchanged since DEST's previous snapshot are hard-linked from it, not copied again.
Elasticsearch is not needed (restore rebuilds the index).

Options:
  --include-secrets   also copy DATA_DIR/session-secret (otherwise restored servers sign new
                      sessions with a new secret and everyone logs in again)
  --max-rate RATE     copy at most RATE bytes per second (suffix k, M or G: 20M), to spare the
                      server's disk; default unlimited
  --keep N            then delete all but the newest N snapshots in DEST (default: keep all)
  --json              print a JSON summary on stdout
  --help              this text

Progress goes to stderr. Exit status: 0 done, 1 failed (nothing is left that looks complete).
`;

export async function run(args: string[]): Promise<number> {
  const options = {
    'include-secrets': { type: 'boolean' },
    'max-rate': { type: 'string' },
    keep: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const parsed = parseCommand('backup', USAGE, { args, allowPositionals: true, options }, 'DEST');
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const rate = values['max-rate'] === undefined ? 0 : parseByteRate(values['max-rate']);
  if (values['max-rate'] !== undefined && !(rate >= 1024)) {
    process.stderr.write('imgpost backup: --max-rate must be a byte rate of at least 1k, like 500k or 20M\n');
    return 2;
  }
  const keep = values.keep === undefined ? 0 : Number(values.keep);
  if (values.keep !== undefined && !(Number.isInteger(keep) && keep >= 1 && keep <= 10_000)) {
    process.stderr.write('imgpost backup: --keep must be an integer from 1 to 10000\n');
    return 2;
  }
  const config = loadConfig();
  // An S3 store (MEDIA_STORE's, or the one `media migrate` moved to): the objects are read from the
  // bucket (the snapshot holds the files themselves either way).
  const { openActiveMediaStoreJob } = await jobsRole();
  const media = openActiveMediaStoreJob(config, createLogger('warn'));
  const result = await backup({
    media,
    dataDir: config.dataDir,
    dest: positionals[0],
    includeSecrets: values['include-secrets'] === true,
    maxBytesPerSecond: rate,
    keep,
    progress: (total) => createProgress('backup', total, { unit: 'files' }),
    note: (line) => process.stderr.write(`imgpost backup: ${line}\n`),
  }).finally(() => media?.close());
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
  process.stderr.write(
    `backed up ${result.posts} posts (${result.files} files, ${mb(result.bytes)} MB; database ${mb(result.database.bytes)} MB) ` +
      `as of ${result.createdAt} into ${result.path} in ${(result.ms / 1000).toFixed(1)}s: ` +
      `${result.copied.files} files copied, ${result.linked.files} unchanged (linked)` +
      `${result.missingThumbnails ? `, ${result.missingThumbnails} thumbnails not made yet (skipped)` : ''}` +
      `${result.deletedDuringBackup ? `, ${result.deletedDuringBackup} posts deleted meanwhile (left out)` : ''}` +
      `${result.pruned.length ? `; deleted ${result.pruned.length} older snapshots` : ''}\n`,
  );
  if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  return 0;
}
