import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { AccountService } from '../accounts/service.ts';
import { paramsAtCost } from '../accounts/passwords.ts';
import { loadSessionSecret, SessionSealer } from '../accounts/session-cookie.ts';
import { PasskeyRepository } from '../passkeys/repository.ts';
import type { PostParts } from './post-parts.ts';

/**
 * Accounts. `web`: what logging in needs (the session secret, read or created in DATA_DIR, and the
 * log of failed logins); `imgpost user` goes without, so it never creates the secret.
 */
export function wireAccounts(posts: PostParts, config: Config, web?: { log: Logger }): AccountService {
  const { db, postRepository, unitOfWork } = posts;
  const passkeys = new PasskeyRepository(db);
  const passwordParams = paramsAtCost(config.passwordHashCost);
  if (!web) return new AccountService({ db, posts: postRepository, unitOfWork, passkeys, passwordParams });
  return new AccountService({
    db,
    posts: postRepository,
    unitOfWork,
    passkeys,
    passwordParams,
    sessions: new SessionSealer(loadSessionSecret(config)),
    registration: { mode: config.registration, permission: config.registrationPermission },
    log: web.log,
  });
}
