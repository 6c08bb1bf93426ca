import Router from '@koa/router';
import type { AppContext, AppState } from '../http/context.ts';
import { COOKIE_NAME } from '../accounts/session-cookie.ts';
import { bundleClient, readStaticAssets, type Asset } from './bundle.ts';
import { galleryPage, type LinkPreview } from './page.ts';
import { relyingParty } from '../passkeys/service.ts';
import { toPostView } from '../kernel/views.ts';
import type { PostRecord } from '../kernel/post-record.ts';

let script: Promise<Asset> | undefined;

/** Page titles by address (docs/decisions.md §12); the browser code renders the content. */
const PAGES: Record<string, string> = {
  '/': 'Newest posts',
  '/search': 'Search',
  '/post/:id': 'Post',
  '/upload': 'Upload',
  '/similar': 'Find similar images',
  '/login': 'Log in',
  '/account': 'Account',
  '/moderation': 'Moderation',
  '/tag/:name': 'Tag',
  '/signup': 'Sign up',
  '/favorites': 'Favorites',
  '/admin/users': 'Users',
  '/comments': 'Recent comments',
  '/pools': 'Pools',
  '/pool/:id': 'Pool',
  '/wiki/:tag': 'Wiki',
};

const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
};

/**
 * No inline script or style anywhere; images from this origin and the media origin (a CDN may serve
 * them, docs/decisions.md §1), blob: for the previews of picked files. connect-src includes the media origin
 * because the post page fetches its image to look for similar ones.
 */
function contentSecurityPolicy(mediaUrl: string, redirectOrigin?: string): string {
  // MEDIA_REDIRECT=presigned: /media answers with a redirect to the bucket, whose origin CSP checks too.
  const media = [originOf(mediaUrl), redirectOrigin].filter(Boolean).join(' ');
  return [
    "default-src 'self'",
    `img-src 'self' ${media} blob: data:`,
    `connect-src 'self' ${media}`,
    // docs/decisions.md §21: videos from the media origin only; blob: for a picked video's preview
    `media-src 'self' ${media} blob:`,
    "script-src 'self'",
    "style-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function sendAsset(ctx: AppContext, asset: Asset): void {
  ctx.set('ETag', asset.etag);
  // Versioned URLs (?v=<etag>) never change; the bare name is revalidated.
  ctx.set('Cache-Control', ctx.query.v ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = asset.type;
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.body = asset.body;
}

/** The web gallery of docs/decisions.md §12: its pages and its files under /assets/. */
/** The post's title and thumbnail for link previews, or none for a missing post (the page says so). */
function previewOf(deps: GalleryDeps, ref: string): LinkPreview | undefined {
  let post: PostRecord;
  try {
    post = deps.postService.find(ref);
  } catch {
    return undefined;
  }
  const view = toPostView(post, deps.config.mediaUrl);
  const text = view.text.trim().replace(/\s+/g, ' ');
  const tags = view.tags.map((t) => t.name).join(', ');
  return {
    title: text ? (text.length > 70 ? `${text.slice(0, 67)}…` : text) : `Post ${view.id.slice(0, 8)}`,
    description: tags ? `Tagged ${tags.length > 150 ? `${tags.slice(0, 147)}…` : tags}` : 'A picture on imgpost',
    image: view.thumbnails['1024'],
    url: `${deps.config.publicUrl}/post/${view.id}`,
  };
}

interface GalleryDeps {
  config: { mediaUrl: string; publicUrl: string; registration: 'open' | 'closed' };
  postService: { find(ref: string): PostRecord };
  mediaRedirect?: { readonly origin?: string };
}

export function galleryRoutes(deps: GalleryDeps): Router<AppState> {
  const router = new Router<AppState>();
  const statics = readStaticAssets();
  // Built on the first request for a page (not free: bench/notes/code-figures.md), once per process:
  // apps that never serve the gallery (tests, mostly) never pay for it. A failed build is a 500 and
  // is tried again.
  const clientScript = () => {
    script ??= bundleClient().catch((err: unknown) => {
      script = undefined;
      throw err;
    });
    return script;
  };
  const version = (etag: string) => etag.slice(1, 13);

  for (const [route, title] of Object.entries(PAGES)) {
    router.get(route, async (ctx) => {
      const js = await clientScript();
      ctx.set('Content-Security-Policy', contentSecurityPolicy(deps.config.mediaUrl, deps.mediaRedirect?.origin));
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'same-origin');
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      const q = route === '/search' && typeof ctx.query.q === 'string' ? ctx.query.q : undefined;
      ctx.body = galleryPage({
        title,
        query: q,
        scriptVersion: version(js.etag),
        styleVersion: version(statics.get('gallery.css')!.etag),
        preview: route === '/post/:id' ? previewOf(deps, ctx.params.id) : undefined,
        features: {
          registration: deps.config.registration === 'open',
          passkeys: !('refused' in relyingParty(deps.config.publicUrl)),
        },
      });
    });
  }

  router.get('/assets/gallery.js', async (ctx) => sendAsset(ctx, await clientScript()));
  router.get('/assets/:name', (ctx) => {
    const asset = statics.get(ctx.params.name);
    if (asset) sendAsset(ctx, asset);
  });

  // The session cookie is HttpOnly, so the page cannot clear it itself (spec: "logging out means
  // clearing the cookie on the client"): this answer does it for the browser. Same-origin only, so
  // another site cannot log people out.
  router.post('/logout', (ctx) => {
    const site = ctx.get('sec-fetch-site');
    const origin = ctx.get('origin');
    if ((site && site !== 'same-origin') || (origin && origin !== ctx.origin)) {
      ctx.status = 403;
      ctx.body = { error: 'log out from the gallery itself' };
      return;
    }
    ctx.append(
      'Set-Cookie',
      `${COOKIE_NAME}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Secure; HttpOnly; SameSite=Lax`,
    );
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect('/');
    ctx.status = 303;
  });
  return router;
}
