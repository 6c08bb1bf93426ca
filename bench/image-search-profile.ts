/**
 * `npx tsx bench/image-search-profile.ts --corpus DIR --posts N [--seconds 15] [--clients 20] [--facets] [--out DIR]
 * [--root CHECKOUT]` (issue 28): the server's CPU profile under an `/image/search` load on a kept corpus
 * (bench/load/corpus.ts), the same request bodies as the facets bench. The server runs with
 * bench/lib/cpu-profile-preload.cjs; the profile (whole process life, so start-up is in it, a
 * second against the load's many) is summarised by self time, with the server's CPU per request
 * read from /proc over the load alone. --root starts another checkout's server (e.g. a base commit).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ALL_FACETS, bodies } from './image-search.ts';
import { cpuSeconds } from './lib/cpu.ts';
import { closedLoop } from './lib/http-load.ts';
import { postJson } from './lib/requests.ts';
import { summarize } from './lib/profile-summary.ts';
import { startServerProcess } from './lib/server-process.ts';
import { openCorpus } from './load/corpus.ts';
import { headerOf, parseCli } from './lib/cli.ts';

const { values: a } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    corpus: { type: 'string' },
    posts: { type: 'string', default: '20000' },
    seconds: { type: 'string', default: '15' },
    clients: { type: 'string', default: '20' },
    facets: { type: 'boolean', default: false },
    out: { type: 'string' },
    root: { type: 'string' },
  },
});
if (!a.corpus) throw new Error('--corpus DIR is required');
const esUrl = process.env.ELASTICSEARCH_URL ?? 'http://127.0.0.1:9277';
const corpus = await openCorpus({ dir: path.resolve(a.corpus), posts: Number(a.posts), esUrl });
const out = path.resolve(a.out ?? fs.mkdtempSync('/tmp/isprof-'));
fs.mkdirSync(out, { recursive: true });
const preload = path.join(import.meta.dirname, 'lib/cpu-profile-preload.cjs');
const server = await startServerProcess(
  {
    ...corpus.env,
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${preload}`.trim(),
    CPU_PROFILE_DIR: out,
  },
  a.root ? path.resolve(a.root) : undefined,
);
let summary: string;
try {
  const list = bodies(corpus, 300);
  const task = async (i: number) => {
    const q = list[i % list.length];
    await postJson(server.url + q.path, a.facets ? { ...(q.body as object), facets: ALL_FACETS } : q.body);
  };
  await closedLoop({ concurrency: Number(a.clients), durationMs: 2000, task }); // warm-up
  const cpu0 = cpuSeconds(server.pid);
  const run = await closedLoop({ concurrency: Number(a.clients), durationMs: Number(a.seconds) * 1000, task });
  const cpu = cpuSeconds(server.pid) - cpu0;
  summary = `${run.requests} requests, ${run.rps.toFixed(0)} req/s, ${run.errors} errors${run.firstError ? ` (${run.firstError})` : ''}; server CPU per request ${((1000 * cpu) / run.requests).toFixed(3)} ms`;
} finally {
  await server.stop();
}
const file = path.join(out, `${server.pid}.cpuprofile`);
process.stdout.write(`${summary}\n${fs.existsSync(file) ? summarize(file, 40) : `no profile at ${file}`}\n`);
