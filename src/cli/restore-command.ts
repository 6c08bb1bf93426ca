import { parseArgs } from 'node:util';
import { ManifestError } from '../backup/manifest.ts';
import { claimEmptyDataDir, RestoreRefused, resolveSnapshot, restoreSnapshot } from '../backup/restore.ts';
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/sqlite.ts';
import { createEsClient } from '../elasticsearch/client.ts';
import { startManagedNode } from '../elasticsearch/managed-node.ts';
import { PostsIndex } from '../elasticsearch/posts-index.ts';
import { createLogger } from '../log.ts';
import { Outbox } from '../outbox/outbox.ts';
import { OutboxRelay } from '../outbox/relay.ts';
import { PostRepository } from '../posts/repository.ts';
import { createProgress } from '../search/progress.ts';
import { reindex } from '../search/reindex.ts';

const USAGE = `Usage: imgpost restore SRC [--replace-index] [--skip-reindex] [--json]

Restores a backup made by \`imgpost backup\` into DATA_DIR, which must be empty and not in use by a
server. SRC is a backup destination (its latest complete snapshot is used) or one snapshot
directory (DEST/snapshots/<time>). Every file is checked against the manifest's sha256 while it is
copied; the database goes into place last. Then the search index
<ELASTICSEARCH_INDEX_PREFIX>-posts is rebuilt from the restored database (as \`imgpost reindex\`).

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
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        'replace-index': { type: 'boolean' },
        'skip-reindex': { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    process.stderr.write(`imgpost restore: ${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`imgpost restore: ${positionals.length ? 'exactly one SRC' : 'SRC is missing'}\n\n${USAGE}`);
    return 2;
  }
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
    const es = doReindex ? createEsClient({ ...config.elasticsearch, url: config.elasticsearch.url ?? (await startManagedNode()).url }) : null;
    try {
      const postsIndex = es && new PostsIndex(es, config.elasticsearch.indexPrefix);
      // Checked before any file is written: restoring into a prefix a live service uses would
      // replace its index.
      if (postsIndex && !values['replace-index'] && (await es.indices.existsAlias({ name: postsIndex.alias })))
        return fail(`the index ${postsIndex.alias} already exists; use another ELASTICSEARCH_INDEX_PREFIX or pass --replace-index`);

      const restored = restoreSnapshot(snapshot, config.dataDir, (total) => createProgress('restore', total, { unit: 'files' }));
      const db = openDatabase(config.dataDir);
      let indexed;
      try {
        if (postsIndex) {
          process.stderr.write(`restored the database and ${restored.files} files; rebuilding the index\n`);
          const posts = new PostRepository(db);
          const outbox = new Outbox(db);
          // Nothing else writes this DATA_DIR (we hold its lock): no relays to wait for.
          indexed = await reindex(
            { postsIndex, postRepository: posts, outbox, relay: new OutboxRelay(outbox, posts, postsIndex, log), log },
            { settleMs: 0, graceMs: 0, retireMs: 0, progress: (total) => createProgress('restore index', total) },
          ).catch((err: unknown) => {
            throw new RestoreRefused(`the data is restored, but rebuilding the index failed (${(err as Error).message}); run \`imgpost reindex\` before starting the server`);
          });
        }
      } finally {
        db.close();
      }
      process.stderr.write(
        `restored ${restored.posts} posts (${restored.files} files) as of ${restored.createdAt} into ${config.dataDir}` +
          `${indexed ? `; indexed ${indexed.posts} posts into ${indexed.index}` : '; index not rebuilt: run `imgpost reindex` before starting the server'}\n` +
          (restored.sessionSecret === 'restored' ? '' : 'the session secret was not in the backup: existing login sessions end; set SESSION_SECRET to keep the old one\n') +
          (restored.missingThumbnails ? `${restored.missingThumbnails} thumbnails were not made yet when the backup ran: run \`imgpost rethumb --missing\`\n` : ''),
      );
      if (values.json) process.stdout.write(`${JSON.stringify({ ...restored, index: indexed ? { name: indexed.index, posts: indexed.posts } : null })}\n`);
      return 0;
    } finally {
      await es?.close();
    }
  } catch (err) {
    if (err instanceof ManifestError || err instanceof RestoreRefused || (err as Error).name === 'DataDirOwnedError') return fail((err as Error).message);
    throw err;
  } finally {
    lock?.release();
  }
}
