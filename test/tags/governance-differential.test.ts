/**
 * docs/decisions.md §15, issue 24: a differential test with SQLite as the oracle. After random alias and
 * implication changes and random writes, every post's tags in the index equal SQLite's, every
 * tag count equals a plain count over post_tags, the stored sets obey the rules (no alias name,
 * closed under implications), and random searches mixing tagInclude, tagExclude, tagAny and
 * aliases agree between /image/search and a plain SQL evaluation.
 * Reproduce a failure with its seed: TAG_TEST_SEED=<n> npx ava test/tags/governance-differential.test.ts
 */
import test from 'ava';
import { Random } from '../../tools/seed/random.ts';
import { pool, postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { createUser, type TestUser } from '../helpers/users.ts';

const SEED = Number(process.env.TAG_TEST_SEED ?? 2424);
const POSTS = 600;
const TAGS = 30;
const QUERIES = 320;

let fx: SeededApp;
let admin: TestUser;
test.before(async () => {
  fx = await startSeededApp({ count: POSTS, seed: SEED, users: 5, tags: TAGS, clusters: 0 });
  admin = await createUser(fx.app, 0x2 | 0x4 | 0x1000);
});
test.after.always(async () => fx?.app.close());

const db = () => fx.app.services.db;
async function call(method: string, url: string, body?: unknown): Promise<number> {
  const res = await fx.app.request(url, {
    method,
    headers: { ...admin.headers, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await res.arrayBuffer();
  return res.status;
}
const enc = encodeURIComponent;

/** The oracle's alias map and closure, read with plain SQL. */
function sqlRules() {
  const aliases = new Map(
    (db().prepare('SELECT name, target FROM tag_aliases').all() as { name: string; target: string }[]).map((r) => [
      r.name,
      r.target,
    ]),
  );
  const edges = db().prepare('SELECT tag, implies FROM tag_implications').all() as { tag: string; implies: string }[];
  const closure = (name: string): Set<string> => {
    const seen = new Set<string>();
    const stack = [name];
    while (stack.length > 0) {
      const at = stack.pop()!;
      for (const e of edges) {
        if (e.tag === at && !seen.has(e.implies)) {
          seen.add(e.implies);
          stack.push(e.implies);
        }
      }
    }
    return seen;
  };
  return { aliases, edges, closure };
}

test('aliases, implications and writes at random: index, counts and ≥300 searches agree with SQL', async (t) => {
  t.timeout(120_000);
  const r = new Random(SEED);
  const t0 = Date.now();
  const mark = (what: string) => t.log(`${what} at ${Date.now() - t0} ms`);
  const names = fx.seed.tags.slice(0, TAGS);
  const seqs = db().prepare('SELECT seq, id FROM posts').all() as { seq: number; id: string }[];
  const outcomes: Record<string, number> = {};
  // Rule changes and writes, interleaved. Bad changes (cycles, alias chains) are refused (400) and
  // leave everything as it was; both kinds happen.
  const record = (kind: string, status: number, what: string) => {
    t.true([200, 204, 400, 404].includes(status), `${kind} ${what}: ${status}`);
    outcomes[`${kind} ${status}`] = (outcomes[`${kind} ${status}`] ?? 0) + 1;
  };
  // Rounds of rule changes (one at a time) then edits (at once: each waits for the index refresh).
  for (let round = 0; round < 5; round++) {
    for (let k = 0; k < 7; k++) {
      const a = r.pick(names);
      const b = r.pick(names);
      const kind = r.weighted([
        ['alias', 2],
        ['unalias', 1],
        ['imply', 5],
        ['unimply', 1],
      ] as const);
      if (kind === 'alias') record(kind, await call('PUT', `/api/tag/${enc(a)}/alias`, { target: b }), `${a} ${b}`);
      else if (kind === 'unalias') record(kind, await call('DELETE', `/api/tag/${enc(a)}/alias`), a);
      else if (kind === 'imply') record(kind, await call('PUT', `/api/tag/${enc(a)}/implies/${enc(b)}`), `${a} ${b}`);
      else record(kind, await call('DELETE', `/api/tag/${enc(a)}/implies/${enc(b)}`), `${a} ${b}`);
    }
    const edits = Array.from({ length: 6 }, () => ({
      post: r.pick(seqs),
      tags: Array.from({ length: r.int(0, 4) }, () => r.pick(names)),
    }));
    for (const status of await Promise.all(edits.map((e) => call('PATCH', `/api/post/${e.post.id}`, { tags: e.tags }))))
      record('edit', status, '');
  }
  t.log(outcomes);
  mark('changes');
  t.true(
    (outcomes['imply 200'] ?? 0) > 3 &&
      (outcomes['alias 200'] ?? 0) > 0 &&
      (outcomes['imply 400'] ?? 0) + (outcomes['alias 400'] ?? 0) > 0,
  );

  // Jobs finish; the relay brings the index in step.
  const deadline = Date.now() + 60_000;
  while ((db().prepare("SELECT count(*) FROM tag_jobs WHERE state = 'running'").pluck().get() as number) > 0) {
    if (Date.now() > deadline) throw new Error('implication jobs did not finish');
    await new Promise((res) => setTimeout(res, 50));
  }
  await fx.app.services.relay.drain();
  await fx.app.services.es.indices.refresh({ index: fx.app.services.postsIndex.alias });

  mark('jobs done');
  // Every post's tags obey the rules in force.
  const { aliases, closure } = sqlRules();
  const tagsOf = new Map<number, Set<string>>();
  for (const row of db()
    .prepare('SELECT pt.post_seq AS seq, t.name FROM post_tags pt JOIN tags t ON t.id = pt.tag_id')
    .all() as { seq: number; name: string }[]) {
    if (!tagsOf.has(row.seq)) tagsOf.set(row.seq, new Set());
    tagsOf.get(row.seq)!.add(row.name);
  }
  let broken = 0;
  for (const [seq, set] of tagsOf) {
    for (const name of set) {
      if (aliases.has(name) || [...closure(name)].some((c) => !set.has(c))) {
        broken++;
        t.log(`post ${seq}: ${name} in ${[...set]}`);
      }
    }
  }
  t.is(broken, 0, 'no post carries an alias name, and every post carries the closure of its tags');

  // Every tag count: the API's against a plain count.
  const counts = db()
    .prepare(
      'SELECT t.name, count(pt.post_seq) AS n FROM tags t LEFT JOIN post_tags pt ON pt.tag_id = t.id GROUP BY t.id',
    )
    .all() as { name: string; n: number }[];
  const listed = (await (await fx.app.request('/api/tag?limit=100')).json()) as {
    data: { name: string; count: number }[];
  };
  t.deepEqual(
    Object.fromEntries(listed.data.map((x) => [x.name, x.count])),
    Object.fromEntries(counts.filter((c) => c.n > 0).map((c) => [c.name, c.n])),
  );

  // Every post's tags in the index equal SQLite's.
  const { es, postsIndex } = fx.app.services;
  const docs = await es.search({
    index: postsIndex.alias,
    size: POSTS + 10,
    _source: ['seq', 'tags'],
    query: { match_all: {} },
  });
  const indexed = new Map(
    docs.hits.hits.map((h) => [(h._source as { seq: number }).seq, [...(h._source as { tags: string[] }).tags].sort()]),
  );
  t.is(indexed.size, seqs.length);
  let differing = 0;
  for (const { seq } of seqs)
    if (JSON.stringify(indexed.get(seq)) !== JSON.stringify([...(tagsOf.get(seq) ?? [])].sort())) differing++;
  t.is(differing, 0, 'index tags = SQLite tags for every post');

  mark('checks');
  // Searches: /image/search against plain SQL (aliases resolved through tag_aliases, then EXISTS).
  const pickName = () => (r.chance(0.25) && aliases.size > 0 ? r.pick([...aliases.keys()]) : r.pick(names));
  const queries = Array.from({ length: QUERIES }, () => {
    const conditions: { type: string; value: string }[] = [];
    for (let n = r.int(1, 4); n > 0; n--)
      conditions.push({
        type: r.weighted([
          ['tagInclude', 3],
          ['tagExclude', 2],
          ['tagAny', 3],
        ] as const),
        value: pickName(),
      });
    return conditions;
  });
  const has =
    'EXISTS (SELECT 1 FROM post_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.post_seq = p.seq AND t.name = coalesce((SELECT target FROM tag_aliases WHERE name = ?), ?))';
  const sqlSearch = (conditions: { type: string; value: string }[]) => {
    const where: string[] = [];
    const params: string[] = [];
    const any = conditions.filter((c) => c.type === 'tagAny');
    for (const c of conditions.filter((c) => c.type !== 'tagAny')) {
      where.push(c.type === 'tagInclude' ? has : `NOT ${has}`);
      params.push(c.value, c.value);
    }
    if (any.length) {
      where.push(`(${any.map(() => has).join(' OR ')})`);
      for (const c of any) params.push(c.value, c.value);
    }
    const sql = `FROM posts p WHERE ${where.join(' AND ')}`;
    return {
      total: db()
        .prepare(`SELECT count(*) ${sql}`)
        .pluck()
        .get(...params) as number,
      page: db()
        .prepare(`SELECT seq ${sql} ORDER BY created_at DESC, seq DESC LIMIT 24`)
        .pluck()
        .all(...params) as number[],
    };
  };
  const answers = await pool(
    8,
    queries.map((conditions) => () => postJson(fx.app, '/image/search?limit=24', { conditions })),
  );
  mark('searches');
  let mismatches = 0;
  let nonEmpty = 0;
  answers.forEach((a, i) => {
    const want = sqlSearch(queries[i]);
    const got = { total: a.body?.data?.total, page: (a.body?.data?.images ?? []).map((x: { id: number }) => x.id) };
    if (want.total > 0) nonEmpty++;
    if (a.status !== 200 || JSON.stringify(got) !== JSON.stringify(want)) {
      mismatches++;
      if (mismatches <= 3) t.log(JSON.stringify(queries[i]), 'index:', got, 'sql:', want);
    }
  });
  t.is(mismatches, 0, `seed ${SEED}`);
  t.true(nonEmpty > QUERIES / 3, `${nonEmpty} of ${QUERIES} searches found posts`);
});
