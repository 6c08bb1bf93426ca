import type { Db } from '../db/sqlite.ts';
import { statementCache, type Statement } from '../db/statements.ts';
import { historyCheckSql, historyProblem, type HistoryBreak, type TableProblem } from '../db/table-problem.ts';

/** A wiki page as stored (docs/decisions.md §23). */
export interface WikiRow {
  id: number;
  tag: string;
  body: string;
  otherNames: string[];
  locked: boolean;
  version: number;
  /** null once the account is deleted */
  editorId: number | null;
  createdAt: string;
  updatedAt: string;
}

/** One stored version of a page: what it said, who wrote it, when. */
export interface WikiVersionRow {
  version: number;
  body: string;
  otherNames: string[];
  editorId: number | null;
  createdAt: string;
}

const SELECT = `SELECT id, tag, body, other_names AS otherNames, locked, version, editor_id AS editorId,
  created_at AS createdAt, updated_at AS updatedAt FROM wiki_pages`;

type Raw = Omit<WikiRow, 'otherNames' | 'locked'> & { otherNames: string; locked: number };
const row = (r: Raw): WikiRow => ({ ...r, otherNames: JSON.parse(r.otherNames) as string[], locked: r.locked === 1 });

/** SQLite access for wiki pages and their versions. Callers own the transactions. */
export class WikiRepository {
  private readonly stmt: (sql: string) => Statement;

  constructor(db: Db) {
    this.stmt = statementCache(db);
  }

  get(tag: string): WikiRow | undefined {
    const r = this.stmt(`${SELECT} WHERE tag = ?`).get(tag) as Raw | undefined;
    return r && row(r);
  }

  /** Which of `tags` have a page (the wiki text's missing-page mark). */
  existing(tags: readonly string[]): Set<string> {
    if (tags.length === 0) return new Set();
    return new Set(
      this.stmt('SELECT tag FROM wiki_pages WHERE tag IN (SELECT value FROM json_each(?))')
        .pluck()
        .all(JSON.stringify(tags)) as string[],
    );
  }

  /** A new page at version 1, with its first version. */
  insert(tag: string, body: string, otherNames: string[], editorId: number | null, at: string): void {
    const names = JSON.stringify(otherNames);
    const info = this.stmt(
      `INSERT INTO wiki_pages (tag, body, other_names, editor_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
    ).run(tag, body, names, editorId, at, at);
    this.addVersion(Number(info.lastInsertRowid), 1, body, names, editorId, at);
  }

  /** The page's next version: its text, and the version row beside it. */
  update(page: WikiRow, body: string, otherNames: string[], editorId: number | null, at: string): void {
    const names = JSON.stringify(otherNames);
    const version = page.version + 1;
    this.stmt(
      'UPDATE wiki_pages SET body = ?, other_names = ?, version = ?, editor_id = ?, updated_at = ? WHERE id = ?',
    ).run(body, names, version, editorId, at, page.id);
    this.addVersion(page.id, version, body, names, editorId, at);
  }

  /** Locking is no edit of the text: no version. */
  setLocked(id: number, locked: boolean): void {
    this.stmt('UPDATE wiki_pages SET locked = ? WHERE id = ?').run(locked ? 1 : 0, id);
  }

  versions(id: number): WikiVersionRow[] {
    return (
      this.stmt(
        `SELECT version, body, other_names AS otherNames, editor_id AS editorId, created_at AS createdAt
         FROM wiki_versions WHERE page_id = ? ORDER BY version DESC`,
      ).all(id) as (Omit<WikiVersionRow, 'otherNames'> & { otherNames: string })[]
    ).map((r) => ({ ...r, otherNames: JSON.parse(r.otherNames) as string[] }));
  }

  version(id: number, version: number): WikiVersionRow | undefined {
    return this.versions(id).find((v) => v.version === version);
  }

  /**
   * Pages whose title, other names or body contain `text` (case-insensitively for ASCII), most
   * recently changed first; every page without a query.
   */
  search(text: string | undefined, offset: number, limit: number): { count: number; data: WikiRow[] } {
    const where =
      text === undefined
        ? ''
        : "WHERE tag LIKE ? ESCAPE '\\' OR other_names LIKE ? ESCAPE '\\' OR body LIKE ? ESCAPE '\\'";
    const like = text === undefined ? [] : Array<string>(3).fill(`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    const count = this.stmt(`SELECT count(*) FROM wiki_pages ${where}`)
      .pluck()
      .get(...like) as number;
    const data = (
      this.stmt(`${SELECT} ${where} ORDER BY updated_at DESC, id DESC LIMIT ? OFFSET ?`).all(
        ...like,
        limit,
        offset,
      ) as Raw[]
    ).map(row);
    return { count, data };
  }

  /** Pages by exact titles (Danbooru's search[title]). */
  byTitles(titles: readonly string[]): WikiRow[] {
    return (
      this.stmt(`${SELECT} WHERE tag IN (SELECT value FROM json_each(?)) ORDER BY tag`).all(
        JSON.stringify(titles),
      ) as Raw[]
    ).map(row);
  }

  /**
   * What `imgpost verify` reports of these tables: pages whose history is not exactly 1..version ending
   * in the page as it stands (a page without its current version among them), and versions of pages that
   * do not exist.
   */
  problems(): TableProblem[] {
    const tags = new Map(
      (this.stmt('SELECT id, tag FROM wiki_pages').all() as { id: number; tag: string }[]).map((r) => [r.id, r.tag]),
    );
    const out: TableProblem[] = [];
    for (const b of this.stmt(
      historyCheckSql('wiki_pages', 'wiki_versions', 'page_id', ['body', 'other_names']),
    ).all() as HistoryBreak[])
      out.push({ table: 'wiki_versions', row: tags.get(b.id) ?? String(b.id), problem: historyProblem(b) });
    for (const id of this.stmt(
      'SELECT DISTINCT v.page_id FROM wiki_versions v WHERE NOT EXISTS (SELECT 1 FROM wiki_pages p WHERE p.id = v.page_id)',
    )
      .pluck()
      .all() as number[])
      out.push({ table: 'wiki_versions', row: String(id), problem: 'versions of a page that does not exist' });
    return out;
  }

  private addVersion(id: number, version: number, body: string, names: string, editorId: number | null, at: string) {
    this.stmt(
      'INSERT INTO wiki_versions (page_id, version, body, other_names, editor_id, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(id, version, body, names, editorId, at);
  }
}
