/**
 * A corpus kept between runs (issues 28 and 41): `npx tsx bench/load/corpus.ts --dir DIR --posts N`.
 *
 * Seeding and indexing millions of posts takes many minutes, so the core figures (bench/run.ts
 * --corpus-root), the page-view load and the facets drivers reuse one DATA_DIR and its index: the first
 * call builds it (bench/load/corpus-build.ts: resumable, chunk by chunk, with votes, comments, favorites,
 * pools, robust descriptors and media), indexes it (reindex()) unless asked not to, and creates the
 * account the load writes with; later calls with the same DIR only read `corpus.json`. Writes of earlier
 * runs stay in it (a few thousand edits and uploads among millions of posts).
 *
 * Media: the seeder writes rows only. A browser's page view fetches thumbnails and the post page the
 * image, so every post gets its `<id>.320.webp`, `<id>.1024.webp` and original as hard links to a pool
 * of distinct photo-like files, which takes minutes instead of writing terabytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/log.ts';
import { openToolJob } from '../../src/roles/jobs.ts';
import { reindex } from '../../src/search/reindex.ts';
import { buildChunks } from './corpus-build.ts';
import { benchEnv, tempDir } from '../lib/env.ts';
import { headerOf, parseCli, runIfMain } from '../lib/cli.ts';
import { benchElasticsearchUrl } from '../lib/elasticsearch.ts';

export interface Corpus {
  dir: string;
  prefix: string;
  esUrl: string;
  posts: number;
  /** the seeder's tag names, most used first (its skew) */
  tags: string[];
  users: { id: number; name: string }[];
  /** planted near-duplicate groups (a sample): the similar lookup's queries */
  clusters: { base: string; postIds: string[] }[];
  /** an account allowed to edit and upload (X-Access-Key) */
  writer: { name: string; accessKey: string };
  /** the environment the server and tool jobs are started with */
  env: Record<string, string>;
  /** seconds the seeding took (all chunks, over however many calls) */
  seedSeconds: number;
  /** whether the posts index is built (a corpus opened with `index: false` leaves that to its caller) */
  indexed: boolean;
}

const log = (line: string) => process.stderr.write(`[corpus ${new Date().toISOString().slice(11, 19)}] ${line}\n`);

/**
 * The corpus of `posts` posts in `dir`: read from `corpus.json` when complete, otherwise built (or its
 * build resumed) first. `index: false` leaves the posts index to the caller (bench/run.ts measures the
 * reindex that builds it, then calls `markIndexed`).
 */
export async function openCorpus(o: { dir: string; posts: number; esUrl: string; index?: boolean }): Promise<Corpus> {
  const file = path.join(o.dir, 'corpus.json');
  if (fs.existsSync(file)) {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Corpus;
    if (kept.posts !== o.posts || kept.esUrl !== o.esUrl)
      throw new Error(
        `${file} holds ${kept.posts} posts on ${kept.esUrl}, not ${o.posts} on ${o.esUrl}: use another --dir`,
      );
    if (kept.indexed || o.index === false) return kept;
    await indexCorpus(kept);
    return kept;
  }
  fs.mkdirSync(o.dir, { recursive: true });
  const dataDir = path.join(o.dir, 'data');
  const prefix = `corpus-${path.basename(o.dir)}`.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  const env = { ...benchEnv({ dataDir, prefix, esUrl: o.esUrl }), WEBHOOK_ALLOW_PRIVATE: '1' };
  const services = await openToolJob(loadConfig(env), createLogger('warn'));
  let corpus: Corpus;
  try {
    const built = await buildChunks(services, o.dir, dataDir, o.posts, log);
    const writer =
      services.accounts.users.getByName('load_runner') === undefined
        ? await services.accounts.createUser({
            name: 'load_runner',
            password: 'load runner password',
            permission: 0x2 | 0x4 | 0x2000,
          })
        : undefined;
    const previous = path.join(o.dir, 'writer.json');
    if (writer) fs.writeFileSync(previous, JSON.stringify({ name: writer.name, accessKey: writer.accessKey }));
    corpus = {
      dir: o.dir,
      prefix,
      esUrl: o.esUrl,
      posts: o.posts,
      tags: built.tags,
      users: built.users,
      clusters: built.clusters,
      writer: JSON.parse(fs.readFileSync(previous, 'utf8')) as Corpus['writer'],
      env,
      seedSeconds: built.seedSeconds,
      indexed: false,
    };
    fs.writeFileSync(file, `${JSON.stringify(corpus)}\n`);
  } finally {
    await services.close();
  }
  if (o.index !== false) await indexCorpus(corpus);
  return corpus;
}

/** A tool job on a corpus kept in `dir` (its corpus.json's environment), for the studies that read one as it is. */
export async function keptCorpusJob(
  dir: string,
): Promise<{ corpus: Corpus; job: Awaited<ReturnType<typeof openToolJob>> }> {
  const corpus = JSON.parse(fs.readFileSync(path.join(dir, 'corpus.json'), 'utf8')) as Corpus;
  return { corpus, job: await openToolJob(loadConfig(corpus.env), createLogger('warn')) };
}

/** Records that the corpus's index is built (by the caller's reindex). */
export function markIndexed(corpus: Corpus): void {
  corpus.indexed = true;
  fs.writeFileSync(path.join(corpus.dir, 'corpus.json'), `${JSON.stringify(corpus)}\n`);
}

async function indexCorpus(corpus: Corpus): Promise<void> {
  const services = await openToolJob(loadConfig(corpus.env), createLogger('warn'));
  try {
    const t1 = Date.now();
    log(`indexing ${corpus.posts} posts`);
    await reindex(services, { settleMs: 50, retire: 'now' });
    log(`indexed in ${((Date.now() - t1) / 1000).toFixed(0)} s`);
  } finally {
    await services.close();
  }
  markIndexed(corpus);
}

/** A throwaway corpus (the default of the page-view load without --corpus): removed by `drop`. */
export async function temporaryCorpus(
  posts: number,
  esUrl: string,
): Promise<{ corpus: Corpus; drop(): Promise<void> }> {
  const dir = tempDir('pv');
  const corpus = await openCorpus({ dir, posts, esUrl });
  return {
    corpus,
    async drop() {
      const job = await openToolJob(loadConfig(corpus.env), createLogger('warn'));
      await job.es.indices
        .delete({ index: `${corpus.prefix}-*`, expand_wildcards: 'all' }, { ignore: [404] })
        .catch(() => {});
      await job.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

runIfMain(import.meta.url, async () => {
  const { values } = parseCli({
    usage: headerOf(import.meta.url),
    options: {
      dir: { type: 'string' },
      posts: { type: 'string', default: '1000000' },
      'no-index': { type: 'boolean', default: false },
    },
  });
  if (!values.dir) throw new Error('--dir DIR is required');
  const esUrl = await benchElasticsearchUrl();
  const c = await openCorpus({
    dir: path.resolve(values.dir),
    posts: Number(values.posts.replace(/_/g, '')),
    esUrl,
    index: !values['no-index'],
  });
  process.stdout.write(
    `${JSON.stringify({ dir: c.dir, prefix: c.prefix, posts: c.posts, dataDir: c.env.DATA_DIR, indexed: c.indexed })}\n`,
  );
});
