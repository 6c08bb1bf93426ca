/**
 * Tag governance (docs/decisions.md §15, issue 24), standalone: `npx tsx bench/tag-governance.ts [--posts 20000]`.
 *  - applying an implication to N seeded posts in the server's background job: posts/s (changed
 *    posts over the job's wall time), and the p99 of /image/search while it runs against the same
 *    figure without it;
 *  - tagAny (an OR group of two tags) against tagInclude of one tag, same corpus, same run.
 * Seeds through the kernel's batch seeding and indexes with the real reindex, then measures the
 * server as a child process. Prints JSON and a Markdown row for a study in bench/notes/.
 */
import { reindex } from '../src/search/reindex.ts';
import { seedPosts } from '../tools/seed/seed.ts';
import { sampleLatency } from './lib/http-load.ts';
import { postJson } from './lib/requests.ts';
import { standalone } from './lib/standalone.ts';
import { fmt, nowMs, summarize } from './lib/stats.ts';
import { numberArg, parseCli, runIfMain } from './lib/cli.ts';

async function main(): Promise<void> {
  const { values } = parseCli({
    usage: 'Usage: npx tsx bench/tag-governance.ts [--posts N=20000] [--samples N=300]\n',
    options: { posts: { type: 'string' }, samples: { type: 'string' } },
  });
  const posts = numberArg(values.posts, 20_000);
  const samples = numberArg(values.samples, 300);
  const log = (line: string) =>
    process.stderr.write(`[bench tag-governance ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
  await standalone('tag-governance', false, async ({ services, startServer }) => {
    log(`seeding ${posts} posts`);
    const seed = seedPosts(services.db, { count: posts, seed: 24, tags: 200, users: 10 });
    services.postRepository.ensureTags(['bench_implied']);
    await reindex(services, { settleMs: 50, retire: 'now' });
    const admin = await services.accounts.createUser({
      name: 'bench_admin',
      password: 'correct horse battery',
      permission: 0x2 | 0x4 | 0x1000,
    });
    const source = seed.tags[0];
    const carrying = services.db.prepare('SELECT post_count FROM tags WHERE name = ?').pluck().get(source) as number;
    const url = await startServer();
    const search = (conditions: unknown) => async () => void (await postJson(`${url}/image/search`, { conditions }));
    const include = search([{ type: 'tagInclude', value: seed.tags[1] }]);
    const any = search([
      { type: 'tagAny', value: seed.tags[1] },
      { type: 'tagAny', value: seed.tags[2] },
    ]);
    const idle = summarize((await sampleLatency(samples, 120_000, include)).latencies);
    const tagInclude = summarize((await sampleLatency(samples, 120_000, include)).latencies);
    const tagAny = summarize((await sampleLatency(samples, 120_000, any)).latencies);

    log(`applying ${source} -> bench_implied to ${carrying} posts`);
    const t0 = nowMs();
    const put = await fetch(`${url}/api/tag/${source}/implies/bench_implied`, {
      method: 'PUT',
      headers: { 'X-Access-Key': admin.accessKey },
    });
    if (put.status !== 200) throw new Error(`PUT implication: ${put.status} ${await put.text()}`);
    const state = () =>
      services.db.prepare('SELECT state, changed FROM tag_jobs ORDER BY id DESC LIMIT 1').get() as {
        state: string;
        changed: number;
      };
    const during: number[] = [];
    while (state().state !== 'done') during.push(...(await sampleLatency(20, 60_000, include)).latencies);
    const seconds = (nowMs() - t0) / 1000;
    const { changed } = state();
    const busy = summarize(during);
    const result = {
      posts,
      changed,
      seconds,
      postsPerSecond: changed / seconds,
      searchIdle: idle,
      searchDuringJob: busy,
      tagInclude,
      tagAny,
    };
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(
      `| tag governance, ${posts.toLocaleString('en-US')} posts | implication applied to ${changed} posts in ${fmt(seconds)} s (${fmt(changed / seconds)} posts/s) | ` +
        `/image/search p99 ${fmt(busy.p99)} ms during the job, ${fmt(idle.p99)} ms without | tagAny (2 tags) p50 ${fmt(tagAny.p50)} / p99 ${fmt(tagAny.p99)} ms, tagInclude p50 ${fmt(tagInclude.p50)} / p99 ${fmt(tagInclude.p99)} ms |\n`,
    );
  });
}

runIfMain(import.meta.url, main);
