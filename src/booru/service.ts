import type { PostRecord } from '../kernel/post-record.ts';
import type { TagRepository } from '../kernel/tag-repository.ts';
import type { PoolService } from '../pools/service.ts';
import type { Clause } from '../search/clauses.ts';
import type { SortClause } from '../search/engine.ts';
import type { SearchDeps } from '../search/page-of-posts.ts';
import { parseDanbooru } from '../search/query/danbooru.ts';
import { parseGallery } from '../search/query/gallery.ts';
import { and, type Query, type QueryOrder } from '../search/query/model.ts';
import { findQueryPage } from '../search/query/run.ts';
import { countSort } from '../search/image-search/query.ts';
import { notFound } from '../errors.ts';
import type { BooruPage } from './params.ts';
import type { LeanPostRows } from '../kernel/lean-post-rows.ts';
import { BOORU_CATEGORY, booruTime, toBooruPost, type BooruPost } from './view.ts';

export interface BooruDeps extends SearchDeps {
  tagRepository: TagRepository;
  pools: Pick<PoolService, 'list' | 'get'>;
  userIdOf: (name: string) => number | undefined;
  rows: LeanPostRows;
}

const DESC = { order: 'desc' } as const;
const NEWEST: SortClause[] = [{ seq: DESC }];

/** The sort of an `order:` (docs/decisions.md §20); the post number ends every tie (it is the page's key). */
function sortFor(order: QueryOrder | undefined): SortClause[] {
  switch (order) {
    case 'id':
      return [{ seq: { order: 'asc' } }];
    case 'favcount':
      return [{ favorites: { order: 'desc', missing: '_last' } }, ...NEWEST];
    case 'change':
      return [{ updated_at: DESC }, ...NEWEST];
    case 'random':
      return [{ _score: DESC }, ...NEWEST];
    // docs/decisions.md §18: as /image/search's orderBy score and comments
    case 'score':
      return [countSort('score', 'desc'), ...NEWEST];
    case 'score_asc':
      return [countSort('score', 'asc'), ...NEWEST];
    case 'comment_count':
      return [countSort('comments', 'desc'), ...NEWEST];
    default:
      return NEWEST;
  }
}

/** A random order: every match scored by a random function of its number, a new seed per request. */
const randomly = (clause: Clause): Clause => ({
  function_score: {
    query: clause,
    random_score: { seed: Math.floor(Math.random() * 2 ** 31), field: 'seq' },
    boost_mode: 'replace',
  },
});

/** Danbooru's read API over our posts (docs/decisions.md §20). */
export class BooruService {
  constructor(private readonly deps: BooruDeps) {}

  private views(seqs: number[]): BooruPost[] {
    return this.deps.rows.bySeq(seqs).map((p) => toBooruPost(p, this.deps.config.mediaUrl));
  }

  /**
   * `/posts.json`: a numbered page in the query's order, or the `limit` posts just below (`bN`) or above
   * (`aN`) a post number, newest first whatever the order. Post numbers only grow, so a client walking
   * `bN` pages sees every post that existed when it started exactly once, whatever is uploaded meanwhile.
   */
  async posts(tags: string, limit: number, page: BooruPage): Promise<BooruPost[]> {
    const { query, order } = parseDanbooru(tags);
    const run = (q: Query, sort: SortClause[], offset: number) =>
      findQueryPage(
        this.deps,
        q,
        // Danbooru's pages carry no count: the engine is not asked for one.
        { sort, offset, limit, uncounted: true },
        order === 'random' && page.kind === 'page' ? randomly : undefined,
      );
    let seqs: number[];
    if (page.kind === 'page') {
      seqs = (await run(query, sortFor(order), (page.n - 1) * limit)).keys.map(Number);
    } else if (page.kind === 'before') {
      const below: Query = { kind: 'range', field: 'seq', bounds: { lt: page.seq } };
      seqs = (await run(and([query, below]), NEWEST, 0)).keys.map(Number);
    } else {
      const above: Query = { kind: 'range', field: 'seq', bounds: { gte: page.seq + 1 } };
      seqs = (await run(and([query, above]), [{ seq: { order: 'asc' } }], 0)).keys.map(Number).reverse();
    }
    return this.views(seqs);
  }

  /** The newest `limit` matching posts as records (the Atom feed); `gallery`: tags in the gallery's spelling. */
  async records(tags: string, limit: number, gallery = false): Promise<PostRecord[]> {
    const { query } = gallery ? parseGallery(tags) : parseDanbooru(tags);
    const page = await findQueryPage(this.deps, query, { sort: NEWEST, offset: 0, limit, uncounted: true });
    return this.deps.postRepository.getManyBySeq(page.keys.map(Number));
  }

  /** `/counts/posts.json`: the exact number of matches. */
  async count(tags: string): Promise<number> {
    const { query } = parseDanbooru(tags);
    return (await findQueryPage(this.deps, query, { sort: NEWEST, offset: 0, limit: 0 })).total;
  }

  /** `/posts/{N}.json` */
  post(seq: number): BooruPost {
    const [view] = this.views([seq]);
    if (!view) throw notFound('no post has that number');
    return view;
  }

  /** `/tags.json`: `{ id, name, post_count, category }`. */
  tags(pattern: string | undefined, order: 'count' | 'name' | 'date', offset: number, limit: number) {
    return this.deps.tagRepository
      .matching(pattern, order, offset, limit)
      .map((t) => ({ id: t.id, name: t.name, post_count: t.count, category: BOORU_CATEGORY[t.category] }));
  }

  /** `/pools/{N}.json` */
  pool(id: number) {
    const detail = this.deps.pools.get(id);
    const seqs = this.deps.postRepository.links.seqsOfIds(detail.postIds);
    return {
      id: detail.id,
      name: detail.name.replace(/ /g, '_'),
      description: detail.description,
      post_ids: detail.postIds.flatMap((uuid) => seqs.get(uuid) ?? []),
      post_count: detail.postCount,
      category: 'series' as const,
      is_active: true,
      is_deleted: false,
      created_at: booruTime(detail.createdAt),
      updated_at: booruTime(detail.updatedAt),
    };
  }

  /**
   * `/pools.json`: pools whose name matches `pattern` (case-insensitive, `*` any run, `_` a space or an
   * underscore), by name; the pools starting with the part before the first `*` are read, then matched.
   */
  pools(pattern: string | undefined, offset: number, limit: number) {
    const p = (pattern ?? '*').toLowerCase();
    const prefix = p.split('*')[0].replace(/_/g, ' ');
    const re = new RegExp(
      `^${p
        .split('*')
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/_/g, '[_ ]'))
        .join('.*')}$`,
      's',
    );
    const { count } = this.deps.pools.list(prefix, 0, 0);
    const matched = this.deps.pools.list(prefix, 0, count).data.filter((x) => re.test(x.name.toLowerCase()));
    return matched.slice(offset, offset + limit).map((x) => this.pool(x.id));
  }
}
