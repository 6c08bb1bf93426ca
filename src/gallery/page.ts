/**
 * The HTML every gallery address answers with: a header (site name, navigation, the search form,
 * which works without script too) and an empty <main> that ./client/main.ts fills in for the
 * address. No inline script or style, so the page runs under the strict policy of ./routes.ts.
 */
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** What a shared link previews (OpenGraph and Twitter cards): chat apps read these, not the script. */
export interface LinkPreview {
  title: string;
  description: string;
  image: string;
  url: string;
}

function previewTags(p: LinkPreview): string {
  return [
    `<meta property="og:type" content="article">`,
    `<meta property="og:site_name" content="imgpost">`,
    `<meta property="og:title" content="${esc(p.title)}">`,
    `<meta property="og:description" content="${esc(p.description)}">`,
    `<meta property="og:image" content="${esc(p.image)}">`,
    `<meta property="og:url" content="${esc(p.url)}">`,
    `<meta name="twitter:card" content="summary_large_image">`,
    `<meta name="twitter:title" content="${esc(p.title)}">`,
    `<meta name="twitter:description" content="${esc(p.description)}">`,
    `<meta name="twitter:image" content="${esc(p.image)}">`,
    '',
  ].join('\n');
}

export interface PageOptions {
  title: string;
  query?: string;
  scriptVersion: string;
  styleVersion: string;
  preview?: LinkPreview;
  /** what the server allows, for the script to show or hide (sign-up; passkeys need a domain as PUBLIC_URL) */
  features: { registration: boolean; passkeys: boolean };
}

export function galleryPage(opts: PageOptions): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${esc(opts.title)} · imgpost</title>
${opts.preview ? previewTags(opts.preview) : ''}<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/gallery.css?v=${opts.styleVersion}">
<script type="module" src="/assets/gallery.js?v=${opts.scriptVersion}"></script>
</head>
<body data-registration="${opts.features.registration ? 'open' : 'closed'}" data-passkeys="${opts.features.passkeys ? 'on' : 'off'}">
<a class="skip" href="#main">Skip to content</a>
<header class="site">
  <a class="brand" href="/">imgpost</a>
  <form class="search" role="search" action="/search" method="get">
    <label for="q">Search</label>
    <input type="search" id="q" name="q" value="${esc(opts.query ?? '')}" autocomplete="off" placeholder="words, &quot;phrase&quot;, +tag, -tag, rating:, by:, sort:">
    <ul id="q-suggestions" class="suggestions" hidden></ul>
    <button type="submit">Go</button>
  </form>
  <nav aria-label="Site">
    <ul>
      <li><a href="/upload">Upload</a></li>
      <li><a href="/similar">Similar</a></li>
      <li><a href="/comments">Comments</a></li>
      <li><a href="/pools">Pools</a></li>
      <li id="nav-account"><a href="/login">Log in</a></li>
    </ul>
  </nav>
</header>
<main id="main" tabindex="-1"><p class="status" role="status">Loading…</p></main>
<footer class="site"><a href="/docs">API</a></footer>
</body>
</html>
`;
}
