/**
 * The gallery over plain HTTP: every address answers the page under a strict policy, the §12 HTML
 * conventions, the script budget (gzipped), caching by ETag, JSON 404s kept for the API, and the
 * log-out answer.
 */
import zlib from 'node:zlib';
import anyTest, { type TestFn } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.ts';

const test = anyTest as TestFn<{ app: TestApp }>;

test.before(async (t) => {
  t.context.app = await startTestApp();
});
test.after.always(async (t) => {
  await t.context.app?.close();
});

const PAGES = [
  '/',
  '/search?q=%2Bcat',
  '/post/0190c3f0-0000-7000-8000-000000000000',
  '/post/17',
  '/upload',
  '/similar',
  '/login',
  '/account',
];
const JS_BUDGET_GZIPPED = 100 * 1024;

test('every address serves the page under a strict Content-Security-Policy, with no inline script or style', async (t) => {
  for (const path of PAGES) {
    const res = await t.context.app.request(path);
    t.is(res.status, 200, path);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.regex(csp, /default-src 'self'/);
    t.regex(csp, /script-src 'self'(;|$)/);
    t.regex(csp, /style-src 'self'(;|$)/);
    t.regex(csp, /object-src 'none'/);
    t.regex(csp, /frame-ancestors 'none'/);
    t.notRegex(csp, /unsafe-inline|unsafe-eval|https?:\/\/(?!127\.0\.0\.1)/);
    const html = await res.text();
    t.notRegex(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path}: inline script`);
    t.notRegex(html, /<style|\sstyle=/, `${path}: inline style`);
    // Offline: nothing is loaded from another origin.
    t.notRegex(html, /(src|href)="(https?:)?\/\//, `${path}: outside resource`);
  }
});

test('the HTML conventions of docs/decisions.md §12: a labelled search field', async (t) => {
  const html = await (await t.context.app.request('/search?q=%22a%20%3Cb%3E%22')).text();
  t.regex(html, /<label for="q">Search<\/label>\s*<input type="search" id="q" name="q"/);
  // The query is echoed escaped.
  t.regex(html, /value="&#34;a &#60;b&#62;&#34;"/);
  t.regex(html, /<html lang="en">/);
  t.regex(html, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
});

test(`the JavaScript sent to the browser stays under ${JS_BUDGET_GZIPPED / 1024} KB gzipped`, async (t) => {
  const html = await (await t.context.app.request('/')).text();
  const src = /<script type="module" src="([^"]+)"><\/script>/.exec(html)?.[1];
  t.truthy(src);
  const res = await t.context.app.request(src!);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/javascript/);
  t.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  const body = Buffer.from(await res.arrayBuffer());
  const gzipped = zlib.gzipSync(body, { level: 9 }).length;
  t.log(`gallery.js: ${body.length} bytes, ${gzipped} gzipped`);
  t.true(gzipped < JS_BUDGET_GZIPPED, `${gzipped} bytes gzipped`);
  // Every script on the page is this one.
  t.is(html.match(/<script/g)?.length, 1);
});

test('assets are revalidated by ETag; unknown assets are JSON 404s', async (t) => {
  for (const name of ['gallery.js', 'gallery.css', 'icon.svg']) {
    const first = await t.context.app.request(`/assets/${name}`);
    t.is(first.status, 200, name);
    t.is(first.headers.get('cache-control'), 'no-cache');
    t.is(first.headers.get('x-content-type-options'), 'nosniff');
    const etag = first.headers.get('etag');
    t.truthy(etag);
    const again = await t.context.app.request(`/assets/${name}`, { headers: { 'If-None-Match': etag! } });
    t.is(again.status, 304, name);
  }
  const missing = await t.context.app.request('/assets/nope.js');
  t.is(missing.status, 404);
  t.deepEqual(await missing.json(), { error: 'not found' });
});

test('API paths keep their JSON 404s; the gallery claims only its own addresses', async (t) => {
  for (const path of ['/api/nope', '/api/post/x/y/z', '/post/a/b', '/uploads', '/nope']) {
    const res = await t.context.app.request(path);
    t.is(res.status, 404, path);
    t.deepEqual(await res.json(), { error: 'not found' }, path);
  }
});

test('POST /logout clears the session cookie for the same site, and refuses other sites', async (t) => {
  const res = await t.context.app.request('/logout', {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: t.context.app.url, 'Sec-Fetch-Site': 'same-origin' },
  });
  t.is(res.status, 303);
  t.is(res.headers.get('location'), '/');
  t.regex(
    res.headers.get('set-cookie') ?? '',
    /^nmsl_cookie=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Secure; HttpOnly; SameSite=Lax$/,
  );

  const cross = await t.context.app.request('/logout', {
    method: 'POST',
    redirect: 'manual',
    headers: { Origin: 'https://evil.example', 'Sec-Fetch-Site': 'cross-site' },
  });
  t.is(cross.status, 403);
  t.is(cross.headers.get('set-cookie'), null);
  t.is((await t.context.app.request('/logout')).status, 405);
});
