/**
 * The upload figure on its own (`npm run bench -- whole-uploads`): sustained whole uploads per second
 * at 8 clients against the same image work in a plain loop, the time from answer to whole, and CPU per
 * upload (bench/upload.ts measures; this builds or reuses the corpus and starts the server).
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/log.ts';
import { openToolJob, type ToolJob } from '../src/roles/jobs.ts';
import { benchElasticsearchUrl } from './lib/elasticsearch.ts';
import { recordRows, uploadRows, writeDashboard } from './dashboard.ts';
import { openCorpus } from './load/corpus.ts';
import { numberArg, parseCli, runIfMain } from './lib/cli.ts';
import { elasticsearchPid } from './lib/cpu.ts';
import { gitCommit, tempDir } from './lib/env.ts';
import { startServerProcess, type ServerProcess } from './lib/server-process.ts';
import { fmt } from './lib/stats.ts';
import { benchUpload, type UploadOptions } from './upload.ts';

const USAGE = `Usage: npm run bench -- whole-uploads [--posts N] [--corpus-root DIR] [--sustain-s N] [--floor-s N] [--keep]

  --posts N           the corpus size in posts (default 100000)
  --corpus-root DIR   keep the corpus in DIR/<posts> (built once, resumable; later runs reuse it), as
                      the suite's --corpus-root; without it a corpus is built in a temporary directory
  --sustain-s N       the uploads' window in seconds (default 180)
  --floor-s N         each of the two floor windows in seconds (default 60)
  --keep              leave a temporary corpus in place
  --record            add the row to bench/recorded.json (date, commit) and rewrite bench/RESULTS.md

At 1M posts, as the issue asks (the corpus takes a while the first time):
  npm run bench -- whole-uploads --posts 1000000 --corpus-root /srv/corpora
`;

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: USAGE,
    options: {
      posts: { type: 'string' },
      'corpus-root': { type: 'string' },
      'sustain-s': { type: 'string' },
      'floor-s': { type: 'string' },
      keep: { type: 'boolean' },
      record: { type: 'boolean' },
    },
  });
  const posts = numberArg(values.posts, 100_000);
  const opts: UploadOptions = {
    sustainMs: numberArg(values['sustain-s'], 180) * 1000,
    floorMs: numberArg(values['floor-s'], 60) * 1000,
    concurrency: 8,
  };
  const log = (line: string) =>
    process.stderr.write(`[bench upload ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  const esUrl = await benchElasticsearchUrl('warn');
  const root = values['corpus-root'];
  const dir = root ? path.join(path.resolve(root), String(posts)) : tempDir(`upload-corpus-${posts}`);
  let services: ToolJob | undefined;
  let server: ServerProcess | undefined;
  try {
    log(`building (or reusing) the corpus of ${posts} posts in ${dir}`);
    const corpus = await openCorpus({ dir, posts, esUrl });
    services = await openToolJob(loadConfig(corpus.env), createLogger('warn'));
    server = await startServerProcess(corpus.env);
    log(`server on ${server.url}; floor ${opts.floorMs / 1000} s, uploads ${opts.sustainMs / 1000} s, floor again`);
    const r = await benchUpload(services, server.url, opts, {
      serverPid: server.pid,
      esPid: await elasticsearchPid(esUrl),
    });
    // A failed upload is the server's to explain (its last log lines; a server gone shows as no CPU).
    if (r.errors > 0)
      log(`${r.errors} uploads failed (first: ${r.firstError}); the server's last lines:\n${server.tail()}`);
    const measuredAt = new Date().toISOString();
    process.stdout.write(`${JSON.stringify({ posts, measuredAt, ...r }, null, 2)}\n`);
    if (values.record) {
      recordRows(uploadRows(r, posts, measuredAt, gitCommit()));
      writeDashboard();
    }
    const cpu = r.cpuPerUploadMs;
    process.stdout.write(
      `| whole uploads, ${posts.toLocaleString('en-US')} posts, ${fmt(r.sustainSeconds)} s | ${fmt(r.uploads.median)} whole uploads/s; ` +
        `answer p50 ${fmt(r.latency.p50)} ms; answer to whole p50 ${fmt(r.toWhole.p50)} ms, p99 ${fmt(r.toWhole.p99)} ms | ` +
        `floor ${r.hashing.runs.map((v) => fmt(v)).join(', ')} img/s | ${fmt(100 * r.ratio)} % | ` +
        `CPU per upload: server ${fmt(cpu?.server ?? NaN)} ms, ES ${fmt(cpu?.elasticsearch ?? NaN)} ms, load ${fmt(cpu?.loadGenerator ?? NaN)} ms |\n`,
    );
  } finally {
    await server?.stop();
    await services?.close();
    if (!root && !values.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, main);
