import { makeMissingThumbnails, rebuildIndex } from '../backup/after-restore.ts';
import { ManifestError } from '../backup/manifest.ts';
import { claimEmptyDataDir, RestoreRefused, resolveSnapshot, restoreSnapshot } from '../backup/restore.ts';
import { assertStoreEmpty, pushRestoredFiles } from '../backup/push-to-store.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../log.ts';
import { jobsRole } from './jobs-role.ts';
import { createProgress } from './progress.ts';
import { parseCommand } from './args.ts';

const USAGE = `Usage: imgpost restore SRC [--replace-index] [--skip-reindex] [--json]

Restores a backup made by \`imgpost backup\` into DATA_DIR, which must be empty and not in use by a
server. SRC is a backup destination (its latest complete snapshot is used) or one snapshot
directory (DEST/snapshots/<time>). Every file is checked against the manifest's sha256 while it is
copied; the database goes into place last. Then thumbnails the backup lacked (not made yet when it
ran) are made, and the search index <ELASTICSEARCH_INDEX_PREFIX>-posts is rebuilt from the restored
database (as \`imgpost reindex\`).

Options:
  --replace-index   rebuild the index even though <prefix>-posts already exists (it is replaced:
                    any server still using that prefix then serves the restored posts)
  --skip-reindex    restore only the files; run \`imgpost reindex\` before starting the server
  --json            print a JSON summary on stdout
  --help            this text

Progress goes to stderr. Exit status: 0 restored, 1 refused or failed (one line says why; a
failed restore removes what it wrote), 2 usage error.
`;

export async function run(args: string[]): Promise<number> {
  const options = {
    'replace-index': { type: 'boolean' },
    'skip-reindex': { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const parsed = parseCommand('restore', USAGE, { args, allowPositionals: true, options }, 'SRC');
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const config = loadConfig();
  const fail = (message: string) => {
    process.stderr.write(`imgpost restore: ${message}\n`);
    return 1;
  };

  let lock;
  try {
    const snapshot = resolveSnapshot(positionals[0]);
    lock = claimEmptyDataDir(config.dataDir);
    const doReindex = values['skip-reindex'] !== true;
    const log = createLogger(config.logLevel === 'debug' ? 'debug' : 'warn');
    const { connectSearchJob } = await jobsRole();
    const search = doReindex ? await connectSearchJob(config, log) : null;
    try {
      // Checked before any file is written: restoring into a prefix a live service uses would
      // replace its index.
      if (
        search &&
        !values['replace-index'] &&
        (await search.es.indices.existsAlias({ name: search.postsIndex.alias }))
      )
        return fail(
          `the index ${search.postsIndex.alias} already exists; use another ELASTICSEARCH_INDEX_PREFIX or pass --replace-index`,
        );

      // MEDIA_STORE=s3: the bucket (or prefix) must be empty, checked before anything is written.
      const { openMediaStoreJob } = await jobsRole();
      const media = config.s3 ? openMediaStoreJob(config, log) : undefined;
      try {
        if (media) await assertStoreEmpty(media);
      } catch (err) {
        media?.close();
        throw err;
      }
      const restored = restoreSnapshot(snapshot, config.dataDir, (total) =>
        createProgress('restore', total, { unit: 'files' }),
      );
      if (media) {
        try {
          const pushed = await pushRestoredFiles(config.dataDir, media, (total) =>
            createProgress('restore to store', total, { unit: 'files' }),
          );
          process.stderr.write(`put ${pushed} files into ${media.location}\n`);
        } finally {
          media.close();
        }
      }
      const { openRestoredJob } = await jobsRole();
      const job = openRestoredJob(config, log);
      let indexed;
      let thumbnails;
      try {
        process.stderr.write(`restored the database and ${restored.files} files\n`);
        if (restored.missingThumbnails > 0) {
          const files = job.files();
          try {
            thumbnails = await makeMissingThumbnails(files, config.hashWorkers, (total) =>
              createProgress('restore thumbnails', total, { unit: 'posts' }),
            );
          } finally {
            await files.close();
          }
        }
        if (search) indexed = await rebuildIndex(job.index(search), (total) => createProgress('restore index', total));
      } finally {
        job.close();
      }
      process.stderr.write(
        `restored ${restored.posts} posts (${restored.files} files) as of ${restored.createdAt} into ${config.dataDir}` +
          `${indexed ? `; indexed ${indexed.posts} posts into ${indexed.index}` : '; index not rebuilt: run `imgpost reindex` before starting the server'}\n` +
          (restored.sessionSecret === 'restored'
            ? ''
            : 'the session secret was not in the backup: existing login sessions end; set SESSION_SECRET to keep the old one\n') +
          (thumbnails
            ? `made the thumbnails of ${thumbnails.regenerated} posts that lacked them when the backup ran${thumbnails.failed.length ? ` (${thumbnails.failed.length} failed: run \`imgpost rethumb --missing\`)` : ''}\n`
            : ''),
      );
      const summary = {
        ...restored,
        thumbnailsMade: thumbnails?.regenerated ?? 0,
        index: indexed ? { name: indexed.index, posts: indexed.posts } : null,
      };
      if (values.json) process.stdout.write(`${JSON.stringify(summary)}\n`);
      return 0;
    } finally {
      await search?.es.close();
    }
  } catch (err) {
    if (err instanceof ManifestError || err instanceof RestoreRefused || (err as Error).name === 'DataDirOwnedError')
      return fail((err as Error).message);
    throw err;
  } finally {
    lock?.release();
  }
}
