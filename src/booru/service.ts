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
import type { BooruComment, BooruNote, BooruPool, BooruPost, BooruTag, BooruWikiPage } from './schemas.ts';
import { BOORU_CATEGORY, booruTime, toBooruPost } from './view.ts';
import type { UserNames } from '../kernel/user-names.ts';
import type { NoteService } from '../notes/service.ts';
import type { NoteRow } from '../notes/note-repository.ts';
import type { WikiService } from '../wiki/service.ts';
import type { CommentService } from '../comments/service.ts';
import type { WikiRow } from '../wiki/wiki-repository.ts';

export interface BooruDeps extends SearchDeps {
  tagRepository: TagRepository;
  pools: Pick<PoolService, 'list' | 'get'>;
  userIdOf: (name: string) => number | undefined;
  rows: LeanPostRows;
  /** docs/decisions.md §23: notes (only=notes, /notes.json) and wiki pages (/wiki_pages.json) */
  notes: Pick<NoteService, 'ofPosts'>;
  /** docs/decisions.md §22: comments (/comments.json), which `imgpost import --from` reads */
  comments: Pick<CommentService, 'ofPost'>;
  wiki: Pick<WikiService, 'find' | 'search' | 'rows'>;
  users: UserNames;
}

/** A note as Danbooru's `/notes.json` shows it (docs/decisions.md §23). */
export const booruNote = (n: NoteRow, postNumber: number): BooruNote => ({
  id: n.id,
  post_id: postNumber,
  x: n.x,
  y: n.y,
  width: n.width,
  height: n.height,
  body: n.body,
  is_active: true,
  version: n.version,
  created_at: booruTime(n.createdAt),
  updated_at: booruTime(n.updatedAt),
});

/** A wiki page as Danbooru's `/wiki_pages.json` shows it (docs/decisions.md §23). */
export const booruWikiPage = (w: WikiRow): BooruWikiPage => ({
  id: w.id,
  title: w.tag,
  body: w.body,
  other_names: w.otherNames,
  is_locked: w.locked,
  is_deleted: false,
  created_at: booruTime(w.createdAt),
  updated_at: booruTime(w.updatedAt),
});

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
    // docs/decisions.md §23: as Danbooru, by the newest note's time, posts without notes last (first ascending)
    case 'note':
      return [{ last_noted_at: { order: 'desc', missing: '_last' } }, ...NEWEST];
    case 'note_asc':
      return [{ last_noted_at: { order: 'asc', missing: '_first' } }, ...NEWEST];
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
  async posts(tags: string, limit: number, page: BooruPage, only?: string[]): Promise<Record<string, unknown>[]> {
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
    return this.only(this.views(seqs), only);
  }

  /**
   * Danbooru's `only=`: each post as the named fields alone, `notes`, `children`, `parent` and
   * `uploader` included as Danbooru nests them (`artist_commentary` is null: there is none here);
   * unknown names are left out.
   */
  private only(posts: BooruPost[], only: string[] | undefined): Record<string, unknown>[] {
    if (!only) return posts;
    const seqs = posts.map((p) => p.id);
    const want = new Set(only);
    const notes = want.has('notes') ? this.deps.notes.ofPosts(seqs) : new Map<number, NoteRow[]>();
    const children = new Map<number, BooruPost[]>(
      want.has('children') ? seqs.map((s) => [s, this.views(this.deps.postRepository.links.childSeqs(s, 0, 200))]) : [],
    );
    const parents = new Map<number, BooruPost>(
      want.has('parent')
        ? this.views([...new Set(posts.flatMap((p) => (p.parent_id === null ? [] : [p.parent_id])))]).map((p) => [
            p.id,
            p,
          ])
        : [],
    );
    const names = want.has('uploader')
      ? this.deps.users.namesOf(posts.flatMap((p) => (p.uploader_id === null ? [] : [p.uploader_id])))
      : new Map<number, string>();
    return posts.map((p) => {
      const out: Record<string, unknown> = {};
      for (const field of only) {
        if (field === 'notes') out.notes = (notes.get(p.id) ?? []).map((n) => booruNote(n, p.id));
        else if (field === 'children') out.children = children.get(p.id) ?? [];
        else if (field === 'parent') out.parent = p.parent_id === null ? null : (parents.get(p.parent_id) ?? null);
        else if (field === 'uploader') {
          const name = p.uploader_id === null ? undefined : names.get(p.uploader_id);
          out.uploader = p.uploader_id !== null && name !== undefined ? { id: p.uploader_id, name } : null;
        } else if (field === 'artist_commentary') out.artist_commentary = null;
        else if (Object.hasOwn(p, field)) out[field] = p[field as keyof BooruPost];
      }
      return out;
    });
  }

  /** `/notes.json?search[post_id]=N`: the post's notes, oldest first (every post's newest without it). */
  notes(postNumber: number): BooruNote[] {
    return (this.deps.notes.ofPosts([postNumber]).get(postNumber) ?? []).map((n) => booruNote(n, postNumber));
  }

  /**
   * `/comments.json?search[post_id]=N[,M...]`: the posts' comments, oldest first, at most `limit` in all;
   * a number no post has has none.
   */
  comments(postNumbers: readonly number[], limit: number): BooruComment[] {
    const out: BooruComment[] = [];
    for (const n of postNumbers) {
      let page;
      try {
        page = this.deps.comments.ofPost(String(n), 0, limit - out.length);
      } catch {
        continue;
      }
      for (const c of page.data)
        out.push({
          id: c.id,
          post_id: n,
          creator_id: c.author?.id ?? null,
          creator_name: c.author?.name ?? c.originAuthor ?? null,
          body: c.body,
          score: 0,
          created_at: booruTime(c.createdAt),
          updated_at: booruTime(c.updatedAt),
          is_deleted: false,
          is_sticky: false,
          do_not_bump_post: false,
        });
      if (out.length >= limit) break;
    }
    return out;
  }

  /** `/wiki_pages.json?search[title]=…`: the page of that title (through aliases), else the newest pages. */
  wikiPages(title: string | undefined, offset: number, limit: number): BooruWikiPage[] {
    if (title !== undefined) {
      const page = this.deps.wiki.find(title.replace(/ /g, '_')) ?? this.deps.wiki.find(title);
      return page && offset === 0 ? [booruWikiPage(page)] : [];
    }
    const { data } = this.deps.wiki.search(undefined, offset, limit);
    return this.deps.wiki.rows(data.map((p) => p.tag)).map(booruWikiPage);
  }

  /** `/wiki_pages/{title}.json` */
  wikiPage(title: string): BooruWikiPage {
    const page = this.deps.wiki.find(title);
    if (!page) throw notFound('no wiki page has that title');
    return booruWikiPage(page);
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
  post(seq: number, only?: string[]): Record<string, unknown> {
    const [view] = this.views([seq]);
    if (!view) throw notFound('no post has that number');
    return this.only([view], only)[0];
  }

  /** `/tags.json`: `{ id, name, post_count, category }`. */
  tags(pattern: string | undefined, order: 'count' | 'name' | 'date', offset: number, limit: number): BooruTag[] {
    return this.deps.tagRepository
      .matching(pattern, order, offset, limit)
      .map((t) => ({ id: t.id, name: t.name, post_count: t.count, category: BOORU_CATEGORY[t.category] }));
  }

  /** `/pools/{N}.json` */
  pool(id: number): BooruPool {
    const detail = this.deps.pools.get(id);
    const seqs = this.deps.postRepository.links.seqsOfIds(detail.postIds);
    return {
      id: detail.id,
      name: detail.name.replace(/ /g, '_'),
      description: detail.description,
      post_ids: detail.postIds.flatMap((uuid) => seqs.get(uuid) ?? []),
      post_count: detail.postCount,
      category: 'series',
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
  pools(pattern: string | undefined, offset: number, limit: number): BooruPool[] {
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
