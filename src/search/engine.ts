import type { EsClient } from '../elasticsearch/client.ts';
import { esErrors, isConnectionError } from '../elasticsearch/client.ts';
import { AppError } from '../errors.ts';
import { msearchBatcher, type MsearchAnswer } from './msearch-batch.ts';

/** A sort clause as Elasticsearch takes it: `{ field: { order, missing? } }` or `'_score'`-style objects. */
export type SortClause = Record<
  string,
  {
    order: 'asc' | 'desc';
    missing?: '_first' | '_last';
    unmapped_type?: string;
    /** a nested field's sort: which nested entries count (orderBy pool, docs/decisions.md §19) */
    nested?: { path: string; filter: Record<string, unknown> };
  }
>;

export interface PageRequest {
  /** the index or alias */
  index: string;
  query: Record<string, unknown>;
  /**
   * Must end with a unique key (the posts' `id` or `seq`), so every hit has a distinct sort tuple:
   * search_after relies on it and the caller reads the key back from the sort values.
   */
  sort: SortClause[];
  offset: number;
  limit: number;
  /** aggregations over the whole result, computed in the same request as the total */
  aggs?: Record<string, unknown>;
  /**
   * the caller does not read the total (the Danbooru API's pages): a page inside the result window is
   * then asked alone, without the count beside it; `total` is -1 there
   */
  uncounted?: boolean;
  /**
   * docs/decisions.md §24: count at most this many matches (a request without aggregations inside the result
   * window); above it `total` is the bound and `totalIsEstimate` is set. Absent: the exact total.
   */
  totalBound?: number;
}

export interface Page {
  /** exact number of matches (a lower bound with totalIsEstimate); -1 for an uncounted page inside the window */
  total: number;
  /** the count stopped at the request's totalBound: there are at least `total` matches */
  totalIsEstimate?: boolean;
  /** the last sort value of each hit in the page, in order (the unique key) */
  keys: (string | number)[];
  /** the results of `aggs`, when asked for */
  aggregations?: Record<string, unknown>;
}

/** Elasticsearch's default `index.max_result_window`; from/size is tried below it. */
export const DEFAULT_WINDOW = 10_000;
const PIT_KEEP_ALIVE = '1m';

interface RawHit {
  sort?: (string | number | null)[];
}
interface RawResponse {
  hits: { total?: { value: number; relation?: 'eq' | 'gte' } | number; hits?: RawHit[] };
  pit_id?: string;
  aggregations?: Record<string, unknown>;
}

const totalOf = (res: RawResponse): number => {
  const t = res.hits.total;
  return typeof t === 'number' ? t : (t?.value ?? 0);
};
const keyOf = (hit: RawHit): string | number => hit.sort![hit.sort!.length - 1] as string | number;

/** True for "from + size is past index.max_result_window" (a lowered window included). */
export function isWindowError(err: unknown): boolean {
  return (
    err instanceof esErrors().ResponseError &&
    /result window is too large/i.test(JSON.stringify(err.body ?? err.message))
  );
}

/** The index vanished under a request (a reindex just deleted the previous index) or a PIT expired. */
function isGoneError(err: unknown): boolean {
  if (!(err instanceof esErrors().ResponseError)) return false;
  const text = JSON.stringify(err.body ?? err.message);
  return /index_not_found_exception|index_closed_exception|search_context_missing_exception|No search context found/i.test(
    text,
  );
}

/** Elasticsearch being down is a 503 for the caller, not a 500. */
export function translateEsError(err: unknown): never {
  if (isConnectionError(err)) throw new AppError('unavailable', 'search is unavailable, try again');
  throw err;
}

/** The window of the index behind `index` (an alias resolves to its one concrete index). */
export async function resultWindow(es: EsClient, index: string): Promise<number> {
  const res = await es.indices.getSettings({
    index,
    name: 'index.max_result_window',
    include_defaults: true,
    flat_settings: true,
  });
  const values = Object.values(res).map((s) =>
    Number(s.settings?.['index.max_result_window'] ?? s.defaults?.['index.max_result_window'] ?? DEFAULT_WINDOW),
  );
  return Math.max(1, Math.min(...values, DEFAULT_WINDOW));
}

// Only the sort values are read: `_source` and stored fields are skipped in every request, so the
// fetch phase stays cheap even when thousands of hits are skipped on the way to a deep page.
const LEAN = {
  _source: false,
  stored_fields: '_none_',
  filter_path: 'hits.total,hits.hits.sort,pit_id,aggregations',
} as const;

/**
 * A page inside the result window: the page (no count) and a size-0 request with the exact total
 * and the aggregations if any, in one `_msearch`. A page that does not count can stop early on its
 * sort; size-0 requests are what the shard request cache keeps, so a repeated query's count and
 * facets are answered from it until the next refresh. Counting (and aggregating) every match was
 * most of a request's cost (issue 28: the variants straight to Elasticsearch under writes,
 * bench/notes/image-search.md, "Facet variants under writes"). Both parts search the same index; a
 * refresh landing between them can
 * put one write's difference between the page and the count, as between any two requests.
 */
async function fromSize(es: EsClient, req: PageRequest): Promise<Page> {
  const aggs = req.aggs;
  // Aggregations visit every match anyway, so their total stays exact; without them the count stops at the bound.
  const bound = aggs === undefined && req.totalBound !== undefined ? req.totalBound : true;
  const count = { query: req.query, size: 0, track_total_hits: bound, ...(aggs ? { aggs } : {}) };
  const page = {
    query: req.query,
    sort: req.sort,
    from: req.offset,
    size: req.limit,
    track_total_hits: false,
    _source: false,
    stored_fields: '_none_',
  };
  const counting = req.limit === 0 || !req.uncounted || aggs !== undefined;
  const searches =
    req.limit === 0
      ? [{ request_cache: true }, count]
      : counting
        ? [{}, page, { request_cache: true }, count]
        : [{}, page];
  // Batched with the other searches of this turn (msearch-batch.ts).
  const answers = (await msearchBatcher(es).run(
    req.index,
    searches,
    'responses.hits.total,responses.hits.hits.sort,responses.aggregations,responses.error,responses.status',
  )) as (Partial<RawResponse> & MsearchAnswer)[];
  // filter_path drops `hits` altogether from a page past the last match.
  const failed = answers.find((a) => a.error);
  if (failed)
    throw new (esErrors().ResponseError)({
      body: { error: failed.error },
      statusCode: failed.status ?? 500,
      headers: {},
      warnings: null,
      meta: {} as never,
    });
  const counted = answers[answers.length - 1];
  const keys = req.limit === 0 ? [] : (answers[0].hits?.hits ?? []).map(keyOf);
  const t = (counted as RawResponse).hits?.total;
  const estimate = counting && typeof t === 'object' && t.relation === 'gte';
  return {
    total: counting ? totalOf(counted as RawResponse) : -1,
    ...(estimate ? { totalIsEstimate: true } : {}),
    keys,
    ...(counted.aggregations ? { aggregations: counted.aggregations } : {}),
  };
}

/**
 * Deep pages: one point-in-time snapshot walked with search_after, so the count and the page come
 * from the same view and there is no 10,000 wall. Skipped pages carry sort values only.
 */
async function walk(es: EsClient, req: PageRequest): Promise<Page> {
  const pageSize = Math.min(await resultWindow(es, req.index), DEFAULT_WINDOW);
  const opened = await es.openPointInTime({ index: req.index, keep_alive: PIT_KEEP_ALIVE });
  let pit = opened.id;
  try {
    let after: unknown[] | undefined;
    let skip = req.offset;
    let total = -1;
    let aggregations: Record<string, unknown> | undefined;
    const keys: (string | number)[] = [];
    for (;;) {
      const want = skip > 0 ? Math.min(skip, pageSize) : Math.min(req.limit - keys.length, pageSize);
      const res = (await es.search({
        query: req.query,
        sort: req.sort as never,
        size: want,
        pit: { id: pit, keep_alive: PIT_KEEP_ALIVE },
        ...(after ? { search_after: after as never } : {}),
        track_total_hits: total < 0,
        // The first request counts, and aggregates, over the same snapshot as every page.
        ...(total < 0 && req.aggs ? { aggs: req.aggs as never } : {}),
        ...LEAN,
      })) as unknown as RawResponse;
      if (res.pit_id) pit = res.pit_id;
      if (total < 0) {
        total = totalOf(res);
        aggregations = res.aggregations;
        if (req.offset >= total) return { total, keys: [], ...(aggregations ? { aggregations } : {}) };
      }
      const hits = res.hits.hits ?? [];
      if (hits.length === 0) break;
      // PIT searches append an implicit _shard_doc tiebreaker after our own sort values.
      after = hits[hits.length - 1].sort;
      if (skip > 0) skip -= hits.length;
      else for (const h of hits) keys.push(h.sort![req.sort.length - 1] as string | number);
      if (hits.length < want || (skip === 0 && keys.length >= req.limit)) break;
    }
    return { total, keys, ...(aggregations ? { aggregations } : {}) };
  } finally {
    await es.closePointInTime({ id: pit }).catch(() => undefined);
  }
}

/**
 * Runs a sorted search and returns the exact total and the page's unique keys. Pages inside the
 * index's result window use from/size; anything past it (the window may have been lowered) walks a
 * point-in-time. A request that races the deletion of a just-replaced index is retried once, against
 * the alias' new target.
 */
export async function searchPage(es: EsClient, req: PageRequest): Promise<Page> {
  const attempt = async (): Promise<Page> => {
    if (req.limit === 0 || req.offset + req.limit <= DEFAULT_WINDOW) {
      try {
        return await fromSize(es, req);
      } catch (err) {
        if (!isWindowError(err)) throw err;
      }
    }
    return walk(es, req);
  };
  try {
    try {
      return await attempt();
    } catch (err) {
      if (!isGoneError(err)) throw err;
      return await attempt();
    }
  } catch (err) {
    return translateEsError(err);
  }
}

export interface ScanHit<T> {
  id: string;
  source: T;
}

/**
 * Every hit of a query, a page at a time (search_after over the unique `id`): for lookups that must
 * see all candidates however many there are. Pages shrink to a lowered result window if need be.
 */
export async function* scanAll<T>(
  es: EsClient,
  req: { index: string; query: Record<string, unknown>; source: string[]; page?: number },
): AsyncGenerator<ScanHit<T>[]> {
  let size = req.page ?? 2000;
  let after: unknown[] | undefined;
  for (;;) {
    let res;
    try {
      res = await es.search<T>({
        index: req.index,
        query: req.query,
        size,
        sort: [{ id: 'asc' }],
        _source: req.source,
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
    } catch (err) {
      if (!isWindowError(err) || size <= 1) throw err;
      size = Math.min(size - 1, await resultWindow(es, req.index));
      continue;
    }
    const hits = res.hits.hits;
    if (hits.length > 0) yield hits.map((h) => ({ id: h._id!, source: h._source as T }));
    if (hits.length < size) return;
    after = hits[hits.length - 1].sort;
  }
}
