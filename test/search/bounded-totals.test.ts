/**
 * Searches that stop counting (docs/decisions.md §24): without facets a total above SEARCH_TOTAL_BOUND is the
 * bound, marked `totalIsEstimate` (`countIsEstimate` for /api/post/search); with facets, or at most the bound,
 * it stays exact; the pages are the same either way. The gallery shows "N+" and the page's tags.
 */
import anyTest, { type TestFn } from 'ava';
import { postJson, startSeededApp, type SeededApp } from '../helpers/search-fixture.ts';
import { browserHooks, openBrowser, ready, type BrowserSession } from '../gallery/browser.ts';

const test = anyTest as TestFn<{ fx: SeededApp; app: SeededApp['app']; session: BrowserSession }>;
const BOUND = 60;

test.before(async (t) => {
  const fx = await startSeededApp({ count: 150, seed: 49 }, { SEARCH_TOTAL_BOUND: String(BOUND) });
  t.context = { fx, app: fx.app, session: await openBrowser(fx.app.url) };
});
browserHooks(test);

type Answer = { total: number; totalIsEstimate?: true; images: { id: number }[] };
const search = async (fx: SeededApp, body: object, offset = 0): Promise<Answer> => {
  const res = await postJson(fx.app, `/image/search?offset=${offset}&limit=24`, body);
  if (res.status !== 200) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data as Answer;
};

test.serial(
  'a total above the bound is the bound, marked an estimate; facets keep it exact; pages are the same',
  async (t) => {
    const { fx } = t.context;
    const posts = fx.posts();
    // Every condition over the tags the seed used most, least, and none.
    const byUse = new Map<string, number>();
    for (const p of posts) for (const { name } of p.tags) byUse.set(name, (byUse.get(name) ?? 0) + 1);
    const tags = [...byUse].sort((a, b) => b[1] - a[1]);
    const bodies = [
      { conditions: [] },
      { conditions: [], orderBy: 'uploadDate', order: 'desc' },
      { conditions: [{ type: 'tagInclude', value: tags[0][0] }], orderBy: 'uploadDate', order: 'desc' },
      { conditions: [{ type: 'tagInclude', value: tags.at(-1)![0] }] },
      { conditions: [{ type: 'tagExclude', value: tags[0][0] }] },
    ];
    let estimates = 0;
    for (const body of bodies)
      for (const offset of [0, 48, 120]) {
        const bounded = await search(fx, body, offset);
        const exact = await search(fx, { ...body, facets: ['rating'] }, offset);
        t.is(exact.totalIsEstimate, undefined);
        t.deepEqual(
          bounded.images.map((i) => i.id),
          exact.images.map((i) => i.id),
          JSON.stringify(body),
        );
        if (exact.total > BOUND) {
          estimates++;
          t.deepEqual([bounded.total, bounded.totalIsEstimate], [BOUND, true], JSON.stringify(body));
        } else t.deepEqual([bounded.total, bounded.totalIsEstimate], [exact.total, undefined], JSON.stringify(body));
      }
    t.true(estimates >= 6, 'some totals were above the bound');
    t.is((await search(fx, { conditions: [] })).total, BOUND);

    // /api/post/search says so in its own words; below the bound it is exact.
    const all = (
      await postJson(fx.app, '/api/post/search?limit=5', {
        filter: [{ type: 'tag', op: 'exclude', value: 'no-such-tag' }],
      })
    ).body;
    t.deepEqual([all.count, all.countIsEstimate, all.data.length], [BOUND, true, 5]);
    const few = (
      await postJson(fx.app, '/api/post/search', { filter: [{ type: 'tag', op: 'include', value: tags.at(-1)![0] }] })
    ).body;
    t.deepEqual([few.count, few.countIsEstimate], [tags.at(-1)![1], undefined]);
  },
);

test.serial(
  'the gallery shows "60+" and the tags of the page for a broad search, exact counts for a narrow one',
  async (t) => {
    const { session } = t.context;
    const { page } = session;
    // Seeded posts have no files: their thumbnails fail, and only they may.
    const failed: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(new URL(r.url()).pathname);
    });
    await page.goto('/search?q=');
    await ready(page);
    await page.getByRole('status').getByText(`${BOUND}+ posts match`).waitFor();
    await page.getByRole('heading', { name: 'Tags on this page' }).waitFor();
    t.regex(await page.locator('.pager').innerText(), /Page 1 of 3\+/);
    await page.locator('.pager a[rel=next]').click();
    await page.waitForURL(/page=2/);
    await ready(page);
    await page.getByRole('status').getByText(`${BOUND}+ posts match`).waitFor();

    const tag = t.context.fx.posts().flatMap((p) => p.tags)[0].name;
    await page.goto(`/search?q=${encodeURIComponent(`+${tag}`)}`);
    await ready(page);
    await page
      .getByRole('status')
      .getByText(/^\d+ posts? match/)
      .waitFor();
    t.notRegex(await page.getByRole('status').innerText(), /\+/);
    await page.getByRole('heading', { name: 'Tags', exact: true }).waitFor();
    t.deepEqual(
      failed.filter((p) => !p.startsWith('/media/')),
      [],
    );
    t.deepEqual(
      session.takeErrors().filter((e) => !e.includes('Failed to load resource')),
      [],
    );
  },
);
