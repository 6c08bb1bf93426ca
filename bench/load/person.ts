/**
 * One simulated person of the page-view load (issue 28), doing what the gallery's pages make a
 * browser do (src/gallery/client/pages): the page's HTML, its script and style on the first visit
 * (versioned, immutable afterwards), the page's API call, then the 24 thumbnails six at a time, with
 * If-None-Match for the ones seen before. Now and then a post page: the post, its 1024 thumbnail,
 * its similar images and possible duplicates in one request (as the page asks them) and its history.
 * 5 % of actions are writes: edits of a post the person saw, and uploads.
 */
import { Random } from '../../tools/seed/random.ts';
import { fetchAll, multipart, request, ValidatorCache, type FetchCounts } from './browser.ts';
import type { Query, Zipf } from './queries.ts';

export type ActionKind = 'home' | 'search+facets' | 'search' | 'post' | 'edit' | 'upload';
export const PAGE_VIEWS: ActionKind[] = ['home', 'search+facets', 'search', 'post'];

export interface Mix {
  /** share of actions that are writes (edits and uploads) */
  writes: number;
  /** of the writes, the share that are uploads */
  uploads: number;
  /** of the page views, the shares of home pages and post pages; the rest are search pages */
  home: number;
  post: number;
  /** of the search pages, the share that ask for facets (the gallery's search page always does) */
  facets: number;
}

export const DEFAULT_MIX: Mix = { writes: 0.05, uploads: 0.2, home: 0.25, post: 0.1, facets: 0.85 };

export interface World {
  base: string;
  queries: Query[];
  zipf: Zipf;
  tags: string[];
  writerKey: string;
  uploads: Buffer[];
  mix: Mix;
  counts: FetchCounts;
}

const mediaPath = (url: string) => new URL(url).pathname;
const ASSET = /(?:href|src)="(\/assets\/[^"]+\?v=[^"]+)"/g;
const json = (reply: { body: Buffer }) => JSON.parse(reply.body.toString('utf8')) as Record<string, unknown>;

export class Person {
  private readonly rnd: Random;
  private readonly cache = new ValidatorCache();
  private assetsLoaded = false;
  /** post ids of the last grid seen: where a click or an edit goes */
  private seen: string[] = [];
  private writes = 0;

  constructor(
    private readonly w: World,
    private readonly id: number,
  ) {
    this.rnd = new Random(1000 + id);
  }

  /** What to do next, by the mix. */
  next(): ActionKind {
    const m = this.w.mix;
    if (this.rnd.chance(m.writes) && this.seen.length) return this.rnd.chance(m.uploads) ? 'upload' : 'edit';
    const r = this.rnd.next();
    if (r < m.home) return 'home';
    if (r < m.home + m.post && this.seen.length) return 'post';
    return this.rnd.chance(m.facets) ? 'search+facets' : 'search';
  }

  run(kind: ActionKind): Promise<void> {
    switch (kind) {
      case 'home':
        return this.home();
      case 'search+facets':
        return this.search(true);
      case 'search':
        return this.search(false);
      case 'post':
        return this.post(this.rnd.pick(this.seen));
      case 'edit':
        return this.edit();
      case 'upload':
        return this.upload();
    }
  }

  /** The HTML shell, and on a person's first page view the versioned script and style it names. */
  private async page(path: string): Promise<void> {
    const html = await request(this.w.base, 'GET', path);
    if (this.assetsLoaded) return;
    const assets = [...html.body.toString('utf8').matchAll(ASSET)].map((m) => m[1].replace(/&amp;/g, '&'));
    await fetchAll(this.w.base, assets, this.cache, this.w.counts);
    this.assetsLoaded = true;
  }

  private pageNo(): number {
    return this.rnd.chance(0.85) ? 1 : this.rnd.int(2, 5);
  }

  private async home(): Promise<void> {
    const page = this.pageNo();
    await this.page(page > 1 ? `/?page=${page}` : '/');
    const res = json(await request(this.w.base, 'GET', `/api/post/?offset=${(page - 1) * 24}&limit=24`));
    const posts = res.data as { id: string; thumbnails: Record<string, string> }[];
    if (posts.length === 0) throw new Error('the home page listed no posts');
    await fetchAll(
      this.w.base,
      posts.map((p) => mediaPath(p.thumbnails['320'])),
      this.cache,
      this.w.counts,
    );
    this.seen = posts.map((p) => p.id);
  }

  private async search(facets: boolean): Promise<void> {
    const query = this.w.queries[this.w.zipf.draw(this.rnd.next())];
    const page = this.pageNo();
    await this.page(`/search?q=${encodeURIComponent(query.q)}${page > 1 ? `&page=${page}` : ''}`);
    const ask = async (body: object) =>
      json(
        await request(this.w.base, 'POST', `/image/search?offset=${(page - 1) * 24}&limit=24`, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    // As the gallery's search page (docs/decisions.md §24): the page first; the facets only for a search that
    // counted to its end (a broader one lists the tags of the page, from the same answer).
    let res = await ask(query.body);
    const first = res.data as { total: number; totalIsEstimate?: boolean };
    const counted = !first.totalIsEstimate && first.total > 0;
    if (facets && counted) res = await ask({ ...query.body, facets: ['tags', 'rating', 'uploader'] });
    const data = res.data as { images: { id: number; imageUrl: string; thumbnailUrl: string }[]; facets?: unknown };
    if (facets && counted && data.facets === undefined)
      throw new Error(`/image/search answered without facets for ${query.q}`);
    await fetchAll(
      this.w.base,
      data.images.map((i) => mediaPath(i.thumbnailUrl)),
      this.cache,
      this.w.counts,
    );
    const ids = data.images.map((i) => mediaPath(i.imageUrl).slice('/media/'.length, '/media/'.length + 36));
    if (ids.length) this.seen = ids;
  }

  private async post(id: string): Promise<void> {
    await this.page(`/post/${id}`);
    const reply = await request(this.w.base, 'GET', `/api/post/${id}`, { expect: [200, 404] });
    if (reply.status === 404) return; // deleted since it was listed: the page says so
    const post = json(reply) as { imageURL: string; image: string; thumbnails: Record<string, string> };
    // The page asks once for both lists, from the post's stored hashes (docs/decisions.md §24), then shows
    // their thumbnails.
    const lists = async () => {
      const found = json(
        await request(this.w.base, 'GET', `/api/post/${id}/similar?transforms=dihedral&robust=1&limit=24`),
      );
      type Match = { id: string; imageURL: string };
      const matches = [...((found.similar ?? []) as Match[]), ...((found.robust ?? []) as Match[])];
      await fetchAll(
        this.w.base,
        matches.map((m) => `${mediaPath(m.imageURL).replace(/[^/]*$/, '')}${m.id}.320.webp`),
        this.cache,
        this.w.counts,
      );
    };
    await Promise.all([
      fetchAll(this.w.base, [mediaPath(post.thumbnails['1024'])], this.cache, this.w.counts),
      lists(),
      request(this.w.base, 'GET', `/api/post/${id}/versions?limit=100`),
    ]);
  }

  private async edit(): Promise<void> {
    const id = this.rnd.pick(this.seen);
    const body = JSON.stringify({
      text: `page-view edit ${this.id}.${++this.writes}`,
      tags: [this.rnd.pick(this.w.tags.slice(0, 300)), this.rnd.pick(this.w.tags)],
    });
    // A post deleted meanwhile is a 404, not an error of the service.
    await request(this.w.base, 'PUT', `/api/post/${id}`, {
      headers: { 'content-type': 'application/json', 'x-access-key': this.w.writerKey },
      body,
      expect: [200, 404],
    });
  }

  private async upload(): Promise<void> {
    const metadata = JSON.stringify({
      text: `page-view upload ${this.id}.${++this.writes}`,
      tags: [this.rnd.pick(this.w.tags.slice(0, 300))],
    });
    const form = multipart([
      { name: 'image', value: this.rnd.pick(this.w.uploads), filename: 'upload.jpg', type: 'image/jpeg' },
      { name: 'metadata', value: metadata, filename: 'metadata.json', type: 'application/json' },
      // The upload pool repeats; near-duplicates are not what this measures.
      { name: 'force', value: '1' },
    ]);
    await request(this.w.base, 'POST', '/api/post/', {
      headers: { 'content-type': form.contentType, 'x-access-key': this.w.writerKey },
      body: form.body,
      expect: [201],
    });
  }
}
