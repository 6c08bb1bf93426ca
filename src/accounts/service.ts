import crypto from 'node:crypto';
import { nowIso, type Db } from '../db/sqlite.ts';
import { AppError, invalid } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import type { Logger } from '../log.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { ACCESS_KEY_PATTERN, accessKeyDigest, generateAccessKey } from './access-keys.ts';
import { DEFAULT_PARAMS, dummyHash, hashPassword, verifyPassword, type ScryptParams } from './passwords.ts';
import {
  DEFAULT_TTL_SECONDS,
  issueCookie,
  MAX_TTL_SECONDS,
  type IssuedCookie,
  type SessionSealer,
} from './session-cookie.ts';
import { LoginThrottle, SignupThrottle } from './throttle.ts';
import { AppKeyService } from './app-keys.ts';
import { Credentials, type PasskeyList } from './credentials.ts';
import { toSelf, UserRepository, type Self, type UserRecord } from './user-repository.ts';
import {
  checkPermission,
  MAX_PASSWORD_LENGTH,
  NAME_PATTERN,
  type NewUserInput,
  validateNewUser,
} from './account-rules.ts';

/** The listing leaves access keys out: they are passwords, and a listing is easily pasted somewhere. */
export type UserSummary = Omit<Self, 'accessKey'>;

export interface AccountDeps {
  db: Db;
  posts: PostRepository;
  /** removing a user changes their posts (disowned): one unit of work */
  unitOfWork: UnitOfWork;
  /** Needed for login and cookies only; the CLI's user commands run without it. */
  sessions?: SessionSealer;
  throttle?: LoginThrottle;
  /** sign-up (docs/decisions.md §14): closed unless the operator opens it */
  registration?: { mode: 'closed' | 'open'; permission: number; throttle?: SignupThrottle };
  log?: Logger;
  /** the passkeys table's owner (src/passkeys), for `imgpost user keys`; none where passkeys are not wired */
  passkeys?: PasskeyList;
  /** scrypt's parameters for new hashes (PASSWORD_HASH_COST); DEFAULT_PARAMS when not given */
  passwordParams?: ScryptParams;
}

const isUniqueViolation = (err: unknown, column: string) =>
  (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String((err as Error).message).includes(column);

/**
 * Accounts: user administration (CLI), login, and the two ways of authenticating a request. A new
 * account's rules (name, password, permission) are account-rules.ts.
 */
export class AccountService {
  readonly users: UserRepository;
  readonly throttle: LoginThrottle;
  readonly signups: SignupThrottle;
  readonly appKeys: AppKeyService;
  readonly credentials: Credentials;
  readonly db: Db;
  private readonly deps: AccountDeps;
  private readonly passwordParams: ScryptParams;

  constructor(deps: AccountDeps) {
    this.deps = deps;
    this.db = deps.db;
    this.users = new UserRepository(deps.db);
    this.throttle = deps.throttle ?? new LoginThrottle();
    this.signups = deps.registration?.throttle ?? new SignupThrottle();
    this.appKeys = new AppKeyService(deps.db, this.users);
    this.credentials = new Credentials(this.appKeys, deps.passkeys ?? { summaries: () => [], delete: () => false });
    this.passwordParams = deps.passwordParams ?? DEFAULT_PARAMS;
    // Compute the dummy hash now, so the first login for an unknown user is not the slow one.
    if (deps.sessions) void dummyHash(this.passwordParams);
  }

  get sessions(): SessionSealer {
    if (!this.deps.sessions) throw new Error('AccountService was built without a session sealer');
    return this.deps.sessions;
  }

  async createUser(input: NewUserInput): Promise<Self> {
    const { permission, email } = validateNewUser(input);
    if (this.users.getByName(input.name)) throw new AppError('conflict', `user name "${input.name}" is already taken`);

    const passwordHash = await hashPassword(input.password, this.passwordParams);
    const id = this.withFreshKey((accessKey, accessKeyDigest) => {
      try {
        return this.users.insert({
          name: input.name,
          email,
          passwordHash,
          accessKey,
          accessKeyDigest,
          permission,
          createdAt: nowIso(),
        });
      } catch (err) {
        // Another process may have taken the name while the password was hashing.
        if (isUniqueViolation(err, 'users.name'))
          throw new AppError('conflict', `user name "${input.name}" is already taken`);
        throw err;
      }
    });
    return toSelf(this.users.getById(id)!);
  }

  list(): UserSummary[] {
    return this.users
      .list()
      .map(({ id, name, email, permission, createdAt }) => ({ id, name, email, permission, createdAt }));
  }

  self(id: number): Self {
    const user = this.users.getById(id);
    if (!user) throw new AppError('unauthenticated', 'authentication required');
    return toSelf(user);
  }

  /** A user's app keys (and passkeys), for `imgpost user keys`. */
  credentialsOf(name: string): { name: string; appKeys: unknown[]; passkeys?: unknown[] } {
    const user = this.byName(name);
    return { name: user.name, ...this.credentials.of(user.id) };
  }

  revokeCredential(
    name: string,
    kind: 'app-key' | 'passkey',
    id: string,
  ): { name: string; revoked: { kind: string; id: string } } {
    const user = this.byName(name);
    if (kind === 'app-key') {
      const n = /^[1-9]\d{0,15}$/.test(id) ? Number(id) : NaN;
      if (!Number.isSafeInteger(n)) throw new AppError('not_found', 'no such app key');
      this.credentials.revokeAppKey(user.id, n);
    } else this.credentials.revokePasskey(user.id, id);
    return { name: user.name, revoked: { kind, id } };
  }

  private byName(name: string): UserRecord {
    const user = this.users.getByName(name);
    if (!user) throw new AppError('not_found', `no user named "${name}"`);
    return user;
  }

  setPermission(name: string, permission: number): Self {
    checkPermission(permission);
    const user = this.byName(name);
    this.users.setPermission(user.id, permission);
    return toSelf(this.users.getById(user.id)!);
  }

  /** A new key; the old one stops working with this commit (lookups go by the key's digest). */
  resetKey(userId: number): { accessKey: string } {
    let issued = '';
    this.withFreshKey((key, digest) => {
      this.users.setAccessKey(userId, key, digest);
      issued = key;
    });
    return { accessKey: issued };
  }

  resetKeyByName(name: string): { accessKey: string } {
    return this.resetKey(this.byName(name).id);
  }

  /**
   * Deletes the user. Their posts stay, disowned: the foreign key sets uploader_id to NULL, and
   * here each one gets a new version and a 'reindex' outbox row in the same transaction, so the
   * relay drops the uploader from the search documents too (no webhook fires for it). Their app
   * keys, favorites, votes, preferences, webhooks (and passkeys) go by cascade; their comments stay,
   * authored by nobody (docs/decisions.md §18).
   */
  remove(name: string): { id: number; name: string; disownedPosts: number } {
    return this.removeUser(this.byName(name));
  }

  removeUser(user: Pick<UserRecord, 'id' | 'name'>): { id: number; name: string; disownedPosts: number } {
    const { posts, unitOfWork } = this.deps;
    // Answered without waiting for the index: the disowned posts follow with the relay's next pass.
    const disowned = unitOfWork.writeInBackground((tx) => {
      const seqs = posts.seqsByUploader(user.id);
      // Their favorites go with them (cascade; the counts follow by trigger): those posts' documents change too.
      const favorited = posts.favorites.seqsFavoritedBy(user.id).filter((seq) => !seqs.includes(seq));
      // docs/decisions.md §18: their votes go too (cascade), their comments stay without an author: both change
      // those posts' documents (counts, commenters).
      const conversed = [...posts.votes.seqsVotedBy(user.id), ...posts.comments.seqsCommentedBy(user.id)];
      const touched = new Set([...seqs, ...favorited, ...conversed]);
      this.users.delete(user.id);
      for (const seq of touched) {
        posts.bumpVersion(seq);
        const post = posts.getBySeq(seq);
        if (post) tx.reindexed(post);
      }
      return seqs.length;
    });
    return { id: user.id, name: user.name, disownedPosts: disowned };
  }

  /**
   * Checks the password (throttled per username and address) and issues a session cookie.
   * Unknown names verify against a dummy hash, so both failures take the same time.
   */
  async login(
    username: string,
    password: string,
    address: string,
    ttl?: number,
  ): Promise<{ self: Self; cookie: IssuedCookie }> {
    // A requested ttl is capped at 30 days; the default lifetime (60 days) is longer than that cap.
    if (ttl !== undefined && (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_TTL_SECONDS))
      throw invalid(['ttl'], `ttl must be an integer from 1 to ${MAX_TTL_SECONDS}`);
    const sessions = this.sessions;
    const attempt = this.throttle.begin(username, address);
    const user = NAME_PATTERN.test(username) ? this.users.getByName(username) : undefined;
    const ok =
      password.length <= MAX_PASSWORD_LENGTH &&
      (await verifyPassword(password, user?.passwordHash ?? (await dummyHash(this.passwordParams))));
    if (!user || !ok) {
      this.deps.log?.info('login failed', { address });
      throw new AppError('login_failed', 'invalid username/password');
    }
    this.throttle.succeeded(attempt);
    return { self: toSelf(user), cookie: issueCookie(sessions, user.id, ttl ?? DEFAULT_TTL_SECONDS) };
  }

  /**
   * Sign-up (docs/decisions.md §14): the CLI's name and password rules, the operator's permission for new
   * accounts, counted per client address whether it succeeds or not.
   */
  async register(
    input: { username: string; password: string; email?: string | null },
    address: string,
  ): Promise<{ self: Self; cookie: IssuedCookie }> {
    const registration = this.deps.registration;
    if (registration?.mode !== 'open') throw new AppError('forbidden', 'sign-up is closed on this server');
    const sessions = this.sessions;
    this.signups.begin(address);
    const self = await this.createUser({
      name: input.username,
      password: input.password,
      email: input.email,
      permission: registration.permission,
    });
    this.deps.log?.info('account registered', { userId: self.id, address });
    return { self, cookie: issueCookie(sessions, self.id) };
  }

  /**
   * The key's owner (the account key, or an app key with its permission), or undefined for an unknown or malformed key.
   */
  authenticateKey(key: string): AuthUser | undefined {
    if (!ACCESS_KEY_PATTERN.test(key)) return undefined;
    const user = this.users.getByKeyDigest(accessKeyDigest(key));
    // The digest lookup already finds only the right row; comparing the key itself as well
    // (in constant time) means a digest collision could never log anyone in.
    if (!user || !crypto.timingSafeEqual(Buffer.from(user.accessKey), Buffer.from(key)))
      return this.appKeys.authenticate(key);
    return { id: user.id, name: user.name, permission: user.permission };
  }

  /**
   * Self for the caller; a request made with an app key never sees the account key (nor the owner's full permission).
   */
  selfFor(caller: AuthUser): Self | Omit<Self, 'accessKey'> {
    const self = this.self(caller.id);
    if (caller.appKeyId === undefined) return self;
    const { accessKey: _hidden, ...rest } = self;
    return { ...rest, permission: caller.permission };
  }

  /** The session's user, or undefined for a bad or expired cookie or a user since removed. */
  authenticateCookie(value: string): AuthUser | undefined {
    const session = this.sessions.open(value);
    const user = session ? this.users.getById(session.uid) : undefined;
    return user && { id: user.id, name: user.name, permission: user.permission };
  }

  /** Runs `write` with a new key, retrying on the (astronomically unlikely) digest collision. */
  private withFreshKey<T>(write: (key: string, digest: Buffer) => T): T {
    for (let attempt = 0; ; attempt++) {
      const key = generateAccessKey();
      try {
        return write(key, accessKeyDigest(key));
      } catch (err) {
        if (attempt < 3 && isUniqueViolation(err, 'users.access_key_digest')) continue;
        throw err;
      }
    }
  }
}
