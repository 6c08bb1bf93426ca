import crypto from 'node:crypto';
import Koa from 'koa';
import type Router from '@koa/router';
import { errorHandler } from './http/errors.ts';
import { bodyCap, bodyCapFor } from './http/body.ts';
import { methodGuard } from './http/method-guard.ts';
import { rateLimit } from './http/rate-limit.ts';
import type { AppState } from './http/context.ts';
import { healthRoutes } from './health/routes.ts';
import { authenticate } from './accounts/auth-middleware.ts';
import { accountRoutes } from './accounts/routes.ts';
import { userRoutes } from './accounts/user-routes.ts';
import { favoriteRoutes } from './favorites/routes.ts';
import { commentRoutes } from './comments/routes.ts';
import { voteRoutes } from './votes/routes.ts';
import { passkeyRoutes } from './passkeys/routes.ts';
import { mediaRoutes } from './media/routes.ts';
import { postRoutes } from './posts/routes.ts';
import type { DirectUploads } from './posts/direct-upload/direct-uploads.ts';
import { versionRoutes } from './posts/versions/routes.ts';
import { tagRoutes } from './tags/routes.ts';
import { postSearchRoutes } from './search/post-search/routes.ts';
import { imageSearchRoutes } from './search/image-search/routes.ts';
import { booruRoutes } from './booru/routes.ts';
import type { BooruService } from './booru/service.ts';
import { similarRoutes } from './search/similar/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { createMetrics, type MetricsDeps } from './observability/metrics.ts';
import { openApiRoutes } from './openapi/routes.ts';
import { requestLog } from './observability/request-log.ts';
import { galleryRoutes } from './gallery/routes.ts';
import { moderationRoutes } from './moderation/routes.ts';
import { poolRoutes } from './pools/routes.ts';
import { childRoutes } from './posts/parents/routes.ts';
import type { Db } from './db/sqlite.ts';
import type { PostsIndex } from './elasticsearch/posts-index.ts';
import type { Logger } from './log.ts';
import type { AccountService } from './accounts/service.ts';
import type { PreferenceStore } from './accounts/preferences.ts';
import type { UserAdmin } from './accounts/user-admin.ts';
import type { FavoriteService } from './favorites/service.ts';
import type { QuickSearch } from './favorites/quick-search.ts';
import type { CommentService } from './comments/service.ts';
import type { VoteService } from './votes/service.ts';
import type { PasskeyService } from './passkeys/service.ts';
import type { ImageStore } from './media-store/image-store.ts';
import type { MediaRedirect } from './media/redirect.ts';
import type { Thumbnailer } from './thumbnails/thumbnailer.ts';
import type { PostService } from './posts/service.ts';
import type { PostHistory } from './posts/versions/history.ts';
import type { ModerationService } from './moderation/service.ts';
import type { TagService } from './tags/service.ts';
import type { TagGovernance } from './tags/governance.ts';
import type { PostSearchService } from './search/post-search/service.ts';
import type { ImageSearchService } from './search/image-search/service.ts';
import type { SimilarService } from './search/similar/service.ts';
import type { WebhookService } from './webhooks/service.ts';
import type { PoolService } from './pools/service.ts';
import type { PostChildren } from './posts/parents/children.ts';

const REQUEST_ID = /^[\w.-]{1,64}$/;

/**
 * What the app is built from: the services its routes and middleware call. A role wires them
 * (src/roles/server.ts); the app only takes them, so it knows nothing of how they are made.
 */
export interface AppServices extends MetricsDeps {
  log: Logger;
  db: Db;
  postsIndex: PostsIndex;
  accounts: AccountService;
  images: ImageStore;
  thumbnailer: Thumbnailer;
  /** MEDIA_REDIRECT=presigned: GET /media answers with a redirect to the bucket; else it streams */
  mediaRedirect?: MediaRedirect;
  postService: PostService;
  directUploads: DirectUploads;
  history: PostHistory;
  moderation: ModerationService;
  tags: TagService;
  tagGovernance: TagGovernance;
  webhooks: WebhookService;
  postSearch: PostSearchService;
  imageSearch: ImageSearchService;
  /** the Danbooru read API (docs/decisions.md §20) */
  booru: BooruService;
  similar: SimilarService;
  preferences: PreferenceStore;
  userAdmin: UserAdmin;
  favorites: FavoriteService;
  quickSearch: QuickSearch;
  /** docs/decisions.md §18 */
  comments: CommentService;
  votes: VoteService;
  passkeys: PasskeyService;
  /** docs/decisions.md §19 */
  pools: PoolService;
  children: PostChildren;
}

/** Builds the Koa app from already-wired services; listening is the caller's business. */
export function createApp(services: AppServices): Koa<AppState> {
  const app = new Koa<AppState>();
  app.proxy = services.config.trustProxy > 0;
  if (app.proxy) app.maxIpsCount = services.config.trustProxy;
  app.silent = true;

  app.use(async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    ctx.state.requestId = REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    await next();
  });
  // Outside the error handler, so both see the status the client gets.
  const metrics = createMetrics(services);
  app.use(requestLog(services.log, [metrics.observeRequest]));
  app.use(errorHandler(services.log));
  app.use(bodyCap(bodyCapFor(services.config.maxImageBytes)));
  // Before every router: an invalid X-Access-Key is 401 even on public endpoints (docs/decisions.md §2).
  app.use(authenticate(services));
  // After authentication, so writes count per user as well as per address.
  app.use(rateLimit(services.config.rateLimit));

  // Each router's middleware matches the path against all of its routes before passing it on, so
  // the busiest paths come first: a page view is one search and 24 thumbnails (issue 28). No two
  // routers share a path, so the order changes nothing else.
  const routers: Router<AppState>[] = [
    mediaRoutes(services),
    imageSearchRoutes(services),
    healthRoutes({ ...services, postsAlias: services.postsIndex.alias }),
    accountRoutes(services),
    userRoutes(services),
    favoriteRoutes(services),
    commentRoutes(services),
    voteRoutes(services),
    passkeyRoutes(services),
    postRoutes({ ...services, tmpDir: services.images.tmpDir, selfOf: (user) => services.accounts.selfFor(user) }),
    versionRoutes(services),
    moderationRoutes(services),
    childRoutes(services),
    poolRoutes({ pools: services.pools, findPost: (ref) => services.postService.find(ref) }),
    tagRoutes(services),
    postSearchRoutes(services),
    similarRoutes({ ...services, tmpDir: services.images.tmpDir }),
    webhookRoutes(services),
    booruRoutes(services),
    metrics.routes(),
    openApiRoutes(services),
    galleryRoutes(services),
  ];
  // koa-router answers 501 to a method it does not implement (PROPFIND, SEARCH...) on a known path and
  // leaves 405 bodies empty: both are the client's mistake, so 405 with the Allow header and a JSON body.
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 501 || (ctx.status === 405 && ctx.body == null)) {
      ctx.status = 405;
      ctx.body = { error: `method ${ctx.method} is not allowed here` };
    }
  });
  app.use(
    methodGuard({
      '/api/post/upload-url': ['POST'],
      '/api/post/search': ['POST'],
      '/api/post/similar': ['POST'],
      '/api/webhook/preview': ['POST'],
    }),
  );
  for (const router of routers) app.use(router.routes()).use(router.allowedMethods());
  return app;
}
