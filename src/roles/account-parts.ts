import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { AccountService } from '../accounts/service.ts';
import { loadSessionSecret, SessionSealer } from '../accounts/session-cookie.ts';
import { PasskeyRepository } from '../passkeys/repository.ts';
import type { PostParts } from './post-parts.ts';

/**
 * Accounts. `web`: what logging in needs (the session secret, read or created in DATA_DIR, and the
 * log of failed logins); `imgpost user` goes without, so it never creates the secret.
 */
export function wireAccounts(posts: PostParts, web?: { config: Config; log: Logger }): AccountService {
  const { db, postRepository, unitOfWork } = posts;
  const passkeys = new PasskeyRepository(db);
  if (!web) return new AccountService({ db, posts: postRepository, unitOfWork, passkeys });
  return new AccountService({
    db,
    posts: postRepository,
    unitOfWork,
    passkeys,
    sessions: new SessionSealer(loadSessionSecret(web.config)),
    registration: { mode: web.config.registration, permission: web.config.registrationPermission },
    log: web.log,
  });
}
