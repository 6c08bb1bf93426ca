/**
 * Anchor for /api/post/search: what the original did in SQL. The same selections (tag include, text
 * contains, created-at range) as joins over posts/post_tags/tags and `LIKE '%…%'`, then count(*) and
 * the page (ordered by id, like the endpoint's default order), hydrated by the same repository call
 * the endpoint uses. In process and synchronous, so it pays no HTTP cost: a generous anchor.
 */
import type { Db } from '../../src/db/sqlite.ts';
import { toPostView, type PostView } from '../../src/kernel/views.ts';
import type { PostRepository } from '../../src/kernel/post-repository.ts';

export interface SearchSpec {
  tag?: string;
  text?: string;
  /** ISO bounds: created_at >= from, created_at < to */
  from?: string;
  to?: string;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class SqlSearch {
  private readonly statements = new Map<string, ReturnType<Db['prepare']>>();

  constructor(
    private readonly db: Db,
    private readonly posts: PostRepository,
    private readonly mediaUrl: string,
  ) {}

  private prepared(sql: string) {
    let st = this.statements.get(sql);
    if (!st) this.statements.set(sql, (st = this.db.prepare(sql)));
    return st;
  }

  search(spec: SearchSpec, offset = 0, limit = 24): { count: number; data: PostView[] } {
    const joins: string[] = [];
    const where: string[] = [];
    const params: unknown[] = [];
    if (spec.tag !== undefined) {
      joins.push('JOIN post_tags pt ON pt.post_seq = p.seq JOIN tags t ON t.id = pt.tag_id');
      where.push('t.name = ?');
      params.push(spec.tag);
    }
    if (spec.text !== undefined) {
      where.push("p.text LIKE ? ESCAPE '\\'");
      params.push(`%${likeEscape(spec.text)}%`);
    }
    if (spec.from !== undefined) {
      where.push('p.created_at >= ?');
      params.push(spec.from);
    }
    if (spec.to !== undefined) {
      where.push('p.created_at < ?');
      params.push(spec.to);
    }
    const from = `FROM posts p ${joins.join(' ')} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`;
    const count = this.prepared(`SELECT count(*) ${from}`)
      .pluck()
      .get(...params) as number;
    const ids = this.prepared(`SELECT p.id ${from} ORDER BY p.id LIMIT ? OFFSET ?`)
      .pluck()
      .all(...params, limit, offset) as string[];
    return { count, data: this.posts.getManyById(ids).map((p) => toPostView(p, this.mediaUrl)) };
  }
}
