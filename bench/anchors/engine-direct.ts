import type { ToolJob } from '../../src/roles/jobs.ts';
import { parseImageSearch } from '../../src/search/image-search/schemas.ts';
import { ImageSearchService } from '../../src/search/image-search/service.ts';

/**
 * The raw-engine anchor of `/image/search` (issue 28): the exact request(s) the endpoint sends to
 * Elasticsearch for a body, captured by running the endpoint's own service in process over a client
 * that records every `search`/`msearch` call, then replayed straight to Elasticsearch over HTTP by the
 * same load generator. What the endpoint adds on top (Koa, validation, SQLite hydration, JSON) is the
 * difference.
 */
export interface EngineCall {
  /** path and query string, e.g. `/bench-posts/_search?filter_path=…` */
  path: string;
  body: string;
  contentType: string;
}

// Parameters the JS client sends in the query string rather than the body.
const QUERY_PARAMS = new Set(['filter_path', 'request_cache', 'index', 'typed_keys']);

function toCall(method: string, params: Record<string, unknown>): EngineCall {
  const qs = new URLSearchParams();
  for (const k of Object.keys(params)) if (QUERY_PARAMS.has(k) && k !== 'index') qs.set(k, String(params[k]));
  const q = qs.toString() ? `?${qs}` : '';
  if (method === 'msearch') {
    const lines = (params.searches as unknown[]).map((l) => JSON.stringify(l));
    return {
      path: `/${String(params.index ?? '')}/_msearch${q}`.replace('//', '/'),
      body: `${lines.join('\n')}\n`,
      contentType: 'application/x-ndjson',
    };
  }
  const body = Object.fromEntries(Object.entries(params).filter(([k]) => !QUERY_PARAMS.has(k)));
  return { path: `/${String(params.index)}/_search${q}`, body: JSON.stringify(body), contentType: 'application/json' };
}

/** The engine calls `/image/search` makes for each request body (in order), with `?offset&limit` from `path`. */
export async function captureEngineCalls(
  services: ToolJob,
  requests: { path: string; body: unknown }[],
): Promise<EngineCall[][]> {
  let calls: EngineCall[] = [];
  const recording = new Proxy(services.es, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if ((prop === 'search' || prop === 'msearch') && typeof value === 'function')
        return (params: Record<string, unknown>, ...rest: unknown[]) => {
          calls.push(toCall(prop, params));
          return (value as (...a: unknown[]) => unknown).call(target, params, ...rest);
        };
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const service = new ImageSearchService({
    es: recording,
    postsIndex: services.postsIndex,
    postRepository: services.postRepository,
    config: services.config,
    userIdOf: (name) => services.accounts.users.getByName(name)?.id,
  });
  const out: EngineCall[][] = [];
  for (const r of requests) {
    calls = [];
    const query = Object.fromEntries(new URL(r.path, 'http://x').searchParams);
    const { request, offset, limit } = parseImageSearch(r.body, query);
    await service.search(request, { offset, limit });
    out.push(calls);
  }
  return out;
}

/**
 * Sends one request's engine calls to Elasticsearch as the endpoint does (one after the other) and reads each answer to
 * its end.
 */
export async function replay(esUrl: string, calls: EngineCall[]): Promise<void> {
  for (const c of calls) {
    const res = await fetch(esUrl + c.path, {
      method: 'POST',
      headers: { 'content-type': c.contentType },
      body: c.body,
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`engine ${c.path}: ${res.status} ${text.slice(0, 200)}`);
  }
}
