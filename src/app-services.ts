/** What the app is built from: its own module, so the features list (src/features.ts) can name it below the app. */
import type { DirectUploads } from './posts/direct-upload/direct-uploads.ts';
import type { BooruService } from './booru/service.ts';
import type { Db } from './db/sqlite.ts';
import type { FfmpegTools } from './video/binaries.ts';
import type { PostsIndex } from './elasticsearch/posts-index.ts';
import type { Logger } from './log.ts';
import type { AccountService } from './accounts/service.ts';
import type { PreferenceStore } from './accounts/preferences.ts';
import type { UserAdmin } from './accounts/user-admin.ts';
import type { FavoriteService } from './favorites/service.ts';
import type { QuickSearch } from './favorites/quick-search.ts';
import type { CommentService } from './comments/service.ts';
import type { VoteService } from './votes/service.ts';
import type { WikiService } from './wiki/service.ts';
import type { NoteService } from './notes/service.ts';
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
import type { AppMetrics, MetricsDeps } from './observability/metrics.ts';

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
  /** docs/decisions.md §21: the ffmpeg and ffprobe in use, named by /readyz */
  ffmpeg: FfmpegTools;
  /** docs/decisions.md §23 */
  wiki: WikiService;
  notes: NoteService;
}

/**
 * What the endpoints are served with: the services, and what the app makes for itself (its metrics
 * registry, one per app, and the builders of the document that lists every endpoint).
 */
export interface AppDeps extends AppServices {
  metrics: AppMetrics;
  openApi: { v31(publicUrl: string): object; v30(publicUrl: string): object };
}
