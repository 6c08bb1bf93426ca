/**
 * Every feature whose endpoints are declared with them (src/http/endpoint.ts): the one list the app
 * mounts (src/app.ts) and the OpenAPI document describes (src/openapi/operations.ts). A new feature is
 * one line here; a new endpoint of a feature touches its folder alone.
 */
import { accountSettingsFeature } from './accounts/account-routes.ts';
import { sessionFeature } from './accounts/session-routes.ts';
import { userAdminFeature } from './accounts/user-routes.ts';
import type { AppServices } from './app-services.ts';
import { commentsFeature } from './comments/comment-routes.ts';
import { favoritesFeature } from './favorites/favorite-routes.ts';
import type { Feature } from './http/endpoint.ts';
import { mediaFeature } from './media/media-routes.ts';
import { passkeysFeature } from './passkeys/passkey-routes.ts';
import { poolsFeature } from './pools/pool-routes.ts';
import { childrenFeature } from './posts/parents/children-routes.ts';
import { tagCategoriesFeature } from './tags/tag-category-routes.ts';
import { tagsFeature } from './tags/tag-routes.ts';
import { votesFeature } from './votes/vote-routes.ts';
import { notesFeature } from './notes/note-routes.ts';
import { wikiFeature } from './wiki/wiki-routes.ts';
import { webhooksFeature } from './webhooks/webhook-routes.ts';

export const FEATURES: readonly Feature<AppServices>[] = [
  mediaFeature,
  commentsFeature,
  votesFeature,
  poolsFeature,
  favoritesFeature,
  webhooksFeature,
  passkeysFeature,
  tagsFeature,
  childrenFeature,
  tagCategoriesFeature,
  sessionFeature,
  accountSettingsFeature,
  userAdminFeature,
  wikiFeature,
  notesFeature,
];
