import type Koa from 'koa';

/** The caller, as the authentication middleware found them; permissions are read fresh per request. */
export interface AuthUser {
  id: number;
  name: string;
  permission: number;
  /**
   * set when the request came with an app key (docs/decisions.md §14): `permission` is then the key's, cut to the
   * owner's
   */
  appKeyId?: number;
}

export interface AppState {
  requestId: string;
  user?: AuthUser;
  /** set by `messageErrors()` (src/http/errors.ts): this route answers errors as `{ error: message }` */
  errorsAsMessage?: boolean;
  /** set by `booruErrors()`: this route answers errors as Danbooru does, `{ success: false, message }` */
  errorsAsBooru?: boolean;
}

export type AppContext = Koa.ParameterizedContext<AppState>;
