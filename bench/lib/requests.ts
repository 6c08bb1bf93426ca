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

/**
 * A post's page in the gallery as an anonymous reader loads it, one request after the other as the page's
 * script makes them: the HTML page, the post (`/api/post/{id}`), then its notes (`/api/post/{id}/note`,
 * asked for every image post, an empty list where there is none). The script and stylesheet (cached), the
 * image itself and the comments and similar-posts sections are left out (an anonymous reader asks for no
 * account).
 */
export async function postPage(url: string, id: string): Promise<void> {
  await call(`${url}/post/${id}`, {}, 200);
  await call(`${url}/api/post/${id}`, {}, 200);
  await notesOf(url, id);
}

/** `/api/post/{id}/note`: the notes over a post's image, as its page reads them. */
export const notesOf = (url: string, id: string): Promise<string> => call(`${url}/api/post/${id}/note`, {}, 200);

/** `[[tag]]` links of a wiki text, as the gallery's wiki text finds them (src/gallery/client/wiki-text.ts). */
const WIKI_LINKS = /\[\[([^\][\n]{1,255})\]\]|\{\{([^{}\n]{1,1000})\}\}/gu;
/** the gallery looks up at most this many linked tags */
const WIKI_LOOKUPS = 50;

/**
 * The wiki excerpt above a single-tag search as the gallery fills it: the tag's page through
 * `/wiki_pages.json?search[title]=` (an empty list where there is none), then, for each distinct tag its first
 * paragraph links (at most 50), that tag's `/tags.json` and `/wiki_pages.json` together (its colour and
 * whether its page exists). Returns how many tags were looked up.
 */
export async function wikiExcerpt(url: string, tag: string): Promise<number> {
  const page = (title: string) => call(`${url}/wiki_pages.json?search[title]=${encodeURIComponent(title)}`, {}, 200);
  const found = JSON.parse(await page(tag)) as { body: string }[];
  if (found.length === 0) return 0;
  const first = found[0].body
    .split(/\n\s*\n/u)[0]
    .trim()
    .slice(0, 2000);
  const names = [
    ...new Set(
      [...first.matchAll(WIKI_LINKS)].filter((m) => m[1] !== undefined).map((m) => m[1].trim().replace(/ /g, '_')),
    ),
  ].slice(0, WIKI_LOOKUPS);
  await Promise.all(
    names.flatMap((name) => [
      call(`${url}/tags.json?search[name_matches]=${encodeURIComponent(name)}`, {}, 200),
      page(name),
    ]),
  );
  return names.length;
}

/**
 * A single-tag search page in the gallery as an anonymous reader loads it: the HTML page, its
 * `/image/search` (the box's text as a gallery query, the first 24, with the tag, rating and uploader
 * facets), then the wiki excerpt (`wikiExcerpt`). The script and stylesheet, the thumbnails and the results'
 * tag categories are left out.
 */
export async function tagSearchPage(url: string, tag: string): Promise<void> {
  await call(`${url}/search?q=${encodeURIComponent(tag)}`, {}, 200);
  await call(
    `${url}/image/search?offset=0&limit=24`,
    json('POST', {
      conditions: [{ type: 'query', value: tag, spelling: 'gallery' }],
      facets: ['tags', 'rating', 'uploader'],
    }),
    200,
  );
  await wikiExcerpt(url, tag);
}
