/**
 * Every feature whose endpoints are declared with them (src/http/endpoint.ts): the one list the app
 * mounts (src/app.ts) and the OpenAPI document describes (src/openapi/operations.ts). A new feature is
 * one line here; a new endpoint of a feature touches its folder alone.
 */
import { accountSettingsFeature } from './accounts/account-routes.ts';
import { sessionFeature } from './accounts/session-routes.ts';
import { userAdminFeature } from './accounts/user-routes.ts';
import type { AppDeps } from './app-services.ts';
import { booruFeature } from './booru/booru-routes.ts';
import { commentsFeature } from './comments/comment-routes.ts';
import { favoritesFeature } from './favorites/favorite-routes.ts';
import type { Feature } from './http/endpoint.ts';
import { mediaFeature } from './media/media-routes.ts';
import { healthFeature } from './health/health-routes.ts';
import { metricsFeature } from './observability/metrics-routes.ts';
import { moderationFeature } from './moderation/moderation-routes.ts';
import { passkeysFeature } from './passkeys/passkey-routes.ts';
import { poolsFeature } from './pools/pool-routes.ts';
import { imageSearchFeature } from './search/image-search/image-search-routes.ts';
import { postSearchFeature } from './search/post-search/post-search-routes.ts';
import { similarFeature } from './search/similar/similar-routes.ts';
import { directUploadFeature } from './posts/direct-upload/upload-url-routes.ts';
import { childrenFeature } from './posts/parents/children-routes.ts';
import { postsFeature } from './posts/post-routes.ts';
import { versionsFeature } from './posts/versions/version-routes.ts';
import { tagCategoriesFeature } from './tags/tag-category-routes.ts';
import { tagsFeature } from './tags/tag-routes.ts';
import { votesFeature } from './votes/vote-routes.ts';
import { notesFeature } from './notes/note-routes.ts';
import { wikiFeature } from './wiki/wiki-routes.ts';
import { webhooksFeature } from './webhooks/webhook-routes.ts';

// In the order the OpenAPI document lists them (its components follow that order, so a reordering
// changes the document); the router mounts the `busy` ones first.
export const FEATURES: readonly Feature<AppDeps>[] = [
  sessionFeature,
  postsFeature,
  versionsFeature,
  tagsFeature,
  postSearchFeature,
  similarFeature,
  imageSearchFeature,
  webhooksFeature,
  mediaFeature,
  healthFeature,
  metricsFeature,
  accountSettingsFeature,
  favoritesFeature,
  userAdminFeature,
  commentsFeature,
  votesFeature,
  moderationFeature,
  passkeysFeature,
  directUploadFeature,
  poolsFeature,
  childrenFeature,
  tagCategoriesFeature,
  booruFeature,
  wikiFeature,
  notesFeature,
];
