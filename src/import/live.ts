/**
 * `imgpost import --from URL` (docs/decisions.md §22): a live board that speaks Danbooru's API, imgpost
 * among them (§20). Posts page by post number (`bN`, newest first); each file is downloaded and checked
 * against its md5 before it goes through the same import as an archive's post; then the pools and the
 * comments of what was imported, the wiki pages of its tags and the notes of its posts (§23). Polite:
 * `--rate` requests a second, and a 429 or 503 waits as its Retry-After says. Resumable: an origin post
 * imported before is not downloaded again.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CommentService } from '../comments/service.ts';
import type { Progress } from '../util/progress.ts';
import type { ImportDeps, ImportItem } from './deps.ts';
import { checked } from './fit.ts';
import { importItems } from './importer.ts';
import { linkImported } from './link.ts';
import { Board } from './board.ts';
import { danbooruComments } from './sources/danbooru.ts';
import { isObject, text, type Meta } from './sources/base.ts';
import { recordOf, Refusal } from './sources/index.ts';
import { emptySummary, finishRun, tally, type ImportSummary } from './summary.ts';

export interface LiveOptions {
  tags: string;
  login?: string;
  apiKey?: string;
  /** at most this many posts (newest first) */
  limit: number;
  /** requests a second */
  rate: number;
  force: boolean;
  dryRun: boolean;
  mapUsers: boolean;
  progress: (total: number) => Progress;
}

export interface LiveDeps extends ImportDeps {
  commentService: Pick<CommentService, 'addImported'>;
  /** the wiki pages and notes an import brings (docs/decisions.md §23); absent: not brought */
  knowledge?: KnowledgeSink;
}

/** Where a board's wiki pages and notes go. */
export interface KnowledgeSink {
  /** a wiki page of a tag, unless the tag has one here already; true when written */
  wikiPage(tag: string, page: { body: string; otherNames: string[] }): Promise<boolean>;
  /** the notes of a post, unless it has notes here already; how many were written */
  notes(
    postSeq: number,
    notes: { x: number; y: number; width: number; height: number; body: string }[],
  ): Promise<number>;
}

/** Danbooru pages at most 200 posts. */
const PAGE = 200;

const posts = (v: unknown): Meta[] => (Array.isArray(v) ? v.filter(isObject) : []);

/** Imports from a live board. */
export async function importFromBoard(deps: LiveDeps, url: string, opts: LiveOptions): Promise<ImportSummary> {
  const board = new Board(url, opts.rate, opts.login, opts.apiKey);
  const summary = emptySummary(opts.dryRun);
  const runId = opts.dryRun ? undefined : deps.runs.start(board.root);
  const progress = opts.progress(opts.limit === Infinity ? 0 : opts.limit);
  const all: ImportItem[] = [];
  const metas = new Map<string, Meta>();
  const download = fs.mkdtempSync(path.join(deps.tmpDir, 'from-'));
  let done = 0;
  let seen = 0;
  try {
    let page = '';
    while (seen < opts.limit) {
      const query = new URLSearchParams({ tags: opts.tags, limit: String(Math.min(PAGE, opts.limit - seen)) });
      if (page) query.set('page', page);
      const list = posts(await board.json(`/posts.json?${query}`));
      if (list.length === 0) break;
      seen += list.length;
      page = `b${Math.min(...list.map((p) => Number(p.id)))}`;
      if (opts.limit === Infinity) progress.update(done, seen);
      // Oldest first within the page, so a parent on the same page usually goes in before its child.
      const items: ImportItem[] = [];
      for (const meta of list.reverse()) {
        let record;
        try {
          record = checked(recordOf({ ...meta, category: board.site }));
        } catch (err) {
          if (!(err instanceof Refusal)) throw err;
          summary.refused.push({ file: `${board.root}/posts/${text(meta.id)}`, reason: err.message });
          progress.update(++done);
          continue;
        }
        record.url = `${board.root}/posts/${record.id}`;
        tally(summary.mapping, record);
        all.push({ record, file: '' });
        metas.set(record.id, meta);
        if (deps.posts.origins.find(record.site, record.id) || opts.dryRun) {
          items.push({ record, file: '' });
          continue;
        }
        const file = await fetchChecked(board, meta, path.join(download, record.id));
        if (typeof file === 'string') items.push({ record, file, label: record.url });
        else {
          summary.refused.push({ file: record.url, reason: file.refused });
          progress.update(++done);
        }
      }
      await importItems(deps, items, opts, summary, () => progress.update(++done));
      for (const item of items) if (item.file) fs.rmSync(item.file, { force: true });
      if (list.length < Math.min(PAGE, opts.limit - (seen - list.length))) break;
    }
    progress.update(done, done);
    progress.done();
    if (!opts.dryRun) {
      await poolsOf(board, all, metas);
      await linkImported(deps, all, summary);
      summary.comments += await commentsOf(deps, board, all);
      if (deps.knowledge) await knowledgeOf(deps, deps.knowledge, board, all);
    }
  } finally {
    fs.rmSync(download, { recursive: true, force: true });
  }
  if (runId !== undefined) finishRun(deps.runs, runId, summary);
  return summary;
}

/** The post's file, downloaded and checked against its md5; a refusal when it cannot be had or differs. */
async function fetchChecked(board: Board, meta: Meta, to: string): Promise<string | { refused: string }> {
  const url = text(meta.file_url);
  if (!url) return { refused: 'the board gives no file for it (restricted there)' };
  const res = await board.get(url);
  if (!res.ok) return { refused: `its file: ${res.status} from ${url}` };
  const bytes = Buffer.from(await res.arrayBuffer());
  const md5 = crypto.createHash('md5').update(bytes).digest('hex');
  const expected = text(meta.md5).toLowerCase();
  if (expected && expected !== md5) return { refused: `md5 differs: the board says ${expected}, the file is ${md5}` };
  fs.writeFileSync(to, bytes);
  return to;
}

/**
 * The pools of the posts read: from their `pool_string` where the board gives it (imgpost does), else by
 * asking /pools.json for the pools holding them; each pool's order from its `post_ids`.
 */
async function poolsOf(board: Board, items: ImportItem[], metas: Map<string, Meta>): Promise<void> {
  const ids = new Set<string>();
  let listed = true;
  for (const meta of metas.values()) {
    if (!('pool_string' in meta)) listed = false;
    for (const w of text(meta.pool_string).split(' ')) if (/^pool:\d+$/.test(w)) ids.add(w.slice(5));
  }
  if (!listed)
    for (let i = 0; i < items.length; i += 100) {
      const some = items.slice(i, i + 100).map((x) => x.record.id);
      const found = posts(await board.json(`/pools.json?search[post_ids_include_any]=${some.join(',')}&limit=1000`));
      for (const p of found) if (text(p.id)) ids.add(text(p.id));
    }
  const byId = new Map(items.map((x) => [x.record.id, x.record]));
  for (const id of ids) {
    const pool = await board.json(`/pools/${id}.json`);
    if (!isObject(pool) || !Array.isArray(pool.post_ids)) continue;
    const name = text(pool.name).replace(/_/g, ' ');
    pool.post_ids.forEach((pid, i) => {
      const record = byId.get(text(pid));
      if (record && !record.pools.some((p) => p.id === id)) record.pools.push({ id, name, position: i + 1 });
    });
  }
}

/** The comments of the posts imported (the posts they became here, not those they enriched). */
async function commentsOf(deps: LiveDeps, board: Board, items: ImportItem[]): Promise<number> {
  let added = 0;
  for (let i = 0; i < items.length; i += 100) {
    const part = items.slice(i, i + 100).map((x) => x.record);
    const seqs = deps.posts.origins.seqsOf(
      board.site,
      part.map((r) => r.id),
    );
    const mine = part.filter((r) => seqs.get(r.id) && !seqs.get(r.id)!.enriched);
    if (mine.length === 0) continue;
    const list = posts(
      await board.json(`/comments.json?group_by=comment&limit=1000&search[post_id]=${mine.map((r) => r.id).join(',')}`),
    );
    const byPost = new Map<string, Meta[]>();
    for (const c of list) byPost.set(text(c.post_id), [...(byPost.get(text(c.post_id)) ?? []), c]);
    for (const r of mine) {
      const comments = danbooruComments(byPost.get(r.id) ?? []);
      if (comments.length === 0) continue;
      added += await deps.commentService.addImported(
        seqs.get(r.id)!.seq,
        comments.map((c) => ({ key: `${board.site}:${c.id}`, author: c.author, body: c.body, createdAt: c.createdAt })),
      );
    }
  }
  return added;
}

/** The wiki pages of the imported posts' tags and the notes of the imported posts (docs/decisions.md §23). */
async function knowledgeOf(deps: LiveDeps, sink: KnowledgeSink, board: Board, items: ImportItem[]): Promise<void> {
  const tags = new Set(items.flatMap((x) => x.record.tags.map((t) => t.name)));
  for (const tag of tags) {
    const pages = posts(await board.json(`/wiki_pages.json?search[title]=${encodeURIComponent(tag)}`));
    const page = pages.find((p) => text(p.title) === tag && p.is_deleted !== true);
    if (page && text(page.body))
      await sink.wikiPage(tag, {
        body: text(page.body),
        otherNames: Array.isArray(page.other_names) ? page.other_names.map(text).filter(Boolean) : [],
      });
  }
  const seqs = deps.posts.origins.seqsOf(
    board.site,
    items.map((x) => x.record.id),
  );
  for (const { record } of items) {
    const here = seqs.get(record.id);
    if (!here || here.enriched) continue;
    const notes = posts(await board.json(`/notes.json?search[post_id]=${record.id}`)).filter(
      (n) => n.is_active !== false,
    );
    if (notes.length === 0) continue;
    await sink.notes(
      here.seq,
      notes.map((n) => ({
        x: Number(n.x),
        y: Number(n.y),
        width: Number(n.width),
        height: Number(n.height),
        body: text(n.body),
      })),
    );
  }
}
