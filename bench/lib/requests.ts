/**
 * The requests the benches send to the server, built here once: a request with its answer checked, a
 * JSON body, the `/image/search` page, and the Danbooru read API with the same query as `/image/search`.
 */

export class HttpError extends Error {}

/** One request, its answer read and returned as text; throws unless the status is `expect`. */
export async function call(url: string, init: RequestInit, expect: number): Promise<string> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== expect)
    throw new HttpError(`${init.method ?? 'GET'} ${new URL(url).pathname}: ${res.status} ${text.slice(0, 200)}`);
  return text;
}

/** A request with a JSON body (and any other headers, e.g. X-Access-Key). */
export const json = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { ...headers, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

/** POSTs JSON and parses the answer; any status but `expect` is an error. */
export async function postJson(url: string, body: unknown, expect = 200): Promise<unknown> {
  return JSON.parse(await call(url, json('POST', body), expect)) as unknown;
}

/** A task for the loops: `POST {url}/image/search?limit=24` with the body `body(i)`, 200 expected. */
export const imageSearch =
  (url: string) =>
  (body: (i: number) => unknown) =>
  async (i: number): Promise<void> => {
    await call(`${url}/image/search?limit=24`, json('POST', body(i)), 200);
  };

/** `/posts.json?tags=a b&limit=N`: the Danbooru read API's search for the tags. */
export const postsJson = (url: string, tags: string[], limit: number): Promise<string> =>
  call(`${url}/posts.json?tags=${encodeURIComponent(tags.join(' '))}&limit=${limit}`, {}, 200);

/** `/image/search` for the same query as `postsJson`: each tag a tagInclude condition, newest first (id). */
export const tagSearch = (url: string, tags: string[], limit: number): Promise<string> =>
  call(
    `${url}/image/search?limit=${limit}`,
    json('POST', { conditions: tags.map((value) => ({ type: 'tagInclude', value })), orderBy: 'id', order: 'desc' }),
    200,
  );

/** Each key's next state, starting on: a toggle loop puts a pair on, then takes it off, then on again. */
export function onOff(): (key: string) => boolean {
  const state = new Map<string, boolean>();
  return (key) => {
    const on = !(state.get(key) ?? false);
    state.set(key, on);
    return on;
  };
}

/** The account with access key `key` favorites `post` (`on`) or takes the favorite back. */
export const favorite = (url: string, post: string | number, key: string, on: boolean): Promise<string> =>
  call(`${url}/api/post/${post}/favorite`, { method: on ? 'PUT' : 'DELETE', headers: { 'X-Access-Key': key } }, 204);

/** The account with access key `key` votes `post` up (`on`) or takes the vote back. */
export const vote = (url: string, post: string | number, key: string, on: boolean): Promise<string> =>
  on
    ? call(`${url}/api/post/${post}/vote`, json('PUT', { value: 1 }, { 'X-Access-Key': key }), 200)
    : call(`${url}/api/post/${post}/vote`, { method: 'DELETE', headers: { 'X-Access-Key': key } }, 204);

/** An edit of `post`'s text by the account with access key `key`. */
export const editText = (url: string, post: string | number, key: string, text: string): Promise<string> =>
  call(`${url}/api/post/${post}`, json('PUT', { text }, { 'X-Access-Key': key }), 200);
