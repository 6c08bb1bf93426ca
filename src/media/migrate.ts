import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Db } from '../db/sqlite.ts';
import { imageName, THUMBNAIL_SIZES, thumbnailName } from '../kernel/media-names.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import { createThrottle } from '../util/byte-rate.ts';
import { copyStreamHashed, hashStream } from '../util/hashed-stream.ts';
import type { Progress } from '../util/progress.ts';
import { MIME_BY_EXT } from '../media-store/formats.ts';
import { locatorPrefix, mediaKey, type MediaStore } from '../media-store/media-store.ts';
import type { PendingFiles } from '../media-store/pending-files.ts';
import type { MediaStoreStates } from '../media-store/store-state.ts';
import type { MediaStores } from '../media-store/stores.ts';

/**
 * `imgpost media migrate --to <store>` (issue 26): moves every post's image and thumbnails to
 * another media store while the server keeps serving and accepting uploads.
 *
 * Switch first, then copy. The first step, one write transaction, records the new store as the
 * active one in `media_store` with the old one as `migrating_from`. The server reads that row on
 * every media operation (src/media-store/stores.ts), so from then on it writes new objects to the
 * new store only, reads the new store first and falls back to the old one, and deletes from both:
 * nothing written during the copy can be left behind in the old store. Then every post numbered up
 * to the switch is copied (source sha256 checked against the bytes read back from the destination),
 * the cursor recorded after each batch, so a killed run resumes where it stopped. Uploads the server
 * had journaled on the old store at the switch (in `pending_files`, read in the switch's
 * transaction) are copied once they have committed. Then `migrating_from` is cleared: reads stop
 * falling back, and the old store is no longer used (the operator deletes it).
 */

export class MigrationRefused extends Error {}

export interface MigrationDeps {
  db: Db;
  posts: Pick<PostRepository, 'exists' | 'lastSeq' | 'imageRefsBetween' | 'countBetween' | 'getById'>;
  states: MediaStoreStates;
  pending: PendingFiles;
  stores: Pick<MediaStores, 'byName' | 'configured'>;
}

export interface MigrateOptions {
  /** canonical store name (storeName): `local` or `s3://bucket/prefix/` */
  to: string;
  progress: (total: number) => Progress;
  note?: (line: string) => void;
  /** bytes per second read from the source, 0: no limit */
  maxBytesPerSecond?: number;
  /** objects copied at once (default 4) */
  parallel?: number;
  /** how long a write journaled on the old store at the switch may take to settle (default 60 s from its journaling) */
  settleMs?: number;
}

export interface MigrateResult {
  from: string;
  to: string;
  /** continued a migration an earlier run started */
  resumed: boolean;
  /** the resume point this run started from, and the last post the copy covers (numbered at the switch) */
  startedAfterSeq: number;
  uptoSeq: number;
  /** uploads journaled on the old store but not committed at the switch (copied once committed) */
  inFlight: number;
  /** posts whose files were checked in this run */
  posts: number;
  /** objects put into the new store and checked in this run */
  copied: number;
  /** objects already in the new store with the source's bytes (an earlier run, or written after the switch) */
  alreadyThere: number;
  bytes: number;
  /** images in neither store (posts that lacked their file before the migration) */
  missingImages: string[];
  ms: number;
}

/** A write the server journaled on the old store just before the switch settles within this long (or has failed). */
const SETTLE_MS = 60_000;

export async function migrateMedia(deps: MigrationDeps, opts: MigrateOptions): Promise<MigrateResult> {
  const started = Date.now();
  const { from, resumed } = await switchStores(deps, opts.to, opts.note);
  const state = deps.states.get()!;
  const source = deps.stores.byName(from);
  const target = deps.stores.byName(opts.to);
  const copier = new Copier(deps, source, target, opts);
  const progress = opts.progress(deps.posts.countBetween(state.cursorSeq, state.uptoSeq) + state.inFlight.length);
  try {
    let cursor = state.cursorSeq;
    let done = 0;
    for (;;) {
      // Small pages: a killed run redoes at most one (each object is then found copied and checked, not put again).
      const page = deps.posts.imageRefsBetween(cursor, state.uptoSeq, Math.max(4, (opts.parallel ?? 4) * 4));
      if (page.length === 0) break;
      const before = copier.counts.copied;
      await copier.posts(page, () => progress.update(++done));
      cursor = page[page.length - 1].seq;
      // The resume point: every post up to it is in the new store, checked.
      deps.states.advance(cursor, copier.counts.copied - before);
    }
    // Writes in flight on the old store at the switch: their journal rows go once they settle.
    for (const id of state.inFlight) {
      await waitSettled(deps, id, locatorPrefix(source), opts.settleMs ?? SETTLE_MS);
      const post = deps.posts.getById(id);
      if (post) await copier.posts([{ id, ext: post.ext }], () => {});
      progress.update(++done);
    }
    deps.db.transaction(() => deps.states.finish()).immediate();
    progress.done();
  } finally {
    await copier.close();
  }
  return {
    from,
    to: opts.to,
    resumed,
    startedAfterSeq: state.cursorSeq,
    uptoSeq: state.uptoSeq,
    inFlight: state.inFlight.length,
    posts: copier.counts.posts,
    copied: copier.counts.copied,
    alreadyThere: copier.counts.alreadyThere,
    bytes: copier.counts.bytes,
    missingImages: copier.missing,
    ms: Date.now() - started,
  };
}

/**
 * Starts the migration (the switch), or finds the one to resume. Refused, with nothing changed:
 * the store already in use, another migration under way, a store that does not answer.
 */
async function switchStores(
  deps: MigrationDeps,
  to: string,
  note?: (line: string) => void,
): Promise<{ from: string; resumed: boolean }> {
  const state = deps.states.get();
  const active = state?.active ?? deps.stores.configured;
  if (state?.migratingFrom !== undefined && to === active) {
    note?.(`resuming the migration from ${state.migratingFrom} to ${to} (${state.copied} objects copied so far)`);
    return { from: state.migratingFrom, resumed: true };
  }
  if (state?.migratingFrom !== undefined && to !== state.migratingFrom) {
    throw new MigrationRefused(
      `a migration from ${state.migratingFrom} to ${active} is under way: finish it with --to ${active} (or go back with --to ${state.migratingFrom})`,
    );
  }
  if (state?.migratingFrom === undefined && to === active)
    throw new MigrationRefused(`the images are already in ${to}: nothing to migrate`);
  // Going back during a migration: the new store holds what was written since the switch, the old one the rest.
  const from = active;
  for (const name of [from, to]) {
    try {
      await deps.stores.byName(name).check();
    } catch (err) {
      throw new MigrationRefused(`${name} cannot be used: ${(err as Error).message}`);
    }
  }
  const prefix = locatorPrefix(deps.stores.byName(from));
  deps.db
    .transaction(() => {
      // Under the write lock: every upload the server journaled on the old store before this commits
      // is in flight (its post not committed yet) or done. Rows of existing posts are thumbnails in
      // flight, made again on demand if they land in the old store after the copy, or rows a killed
      // migration left: neither is waited for.
      const inFlight = [
        ...new Set(
          deps.pending
            .list()
            .filter((r) => r.path.startsWith(prefix) && !deps.posts.exists(r.postId))
            .map((r) => r.postId),
        ),
      ];
      deps.states.begin(to, from, deps.posts.lastSeq(), inFlight);
    })
    .immediate();
  note?.(`switched: the server now writes to ${to} and reads from ${from} what is not copied yet`);
  return { from, resumed: false };
}

/**
 * Waits until no journal row of the post younger than `ms` names the old store: its write committed
 * or was undone. Older rows are not writes in flight (a delete that failed, left to the sweep).
 */
async function waitSettled(deps: MigrationDeps, postId: string, prefix: string, ms: number): Promise<void> {
  const live = () =>
    deps.pending
      .list()
      .some((r) => r.postId === postId && r.path.startsWith(prefix) && Date.parse(r.createdAt) > Date.now() - ms);
  while (live()) await new Promise((r) => setTimeout(r, 100));
}

/** Copies posts' objects, `parallel` at a time, each checked by sha256. */
class Copier {
  readonly counts = { posts: 0, copied: 0, alreadyThere: 0, bytes: 0 };
  readonly missing: string[] = [];
  private readonly throttle: (bytes: number) => Promise<void>;
  private tmp?: string;

  constructor(
    private readonly deps: MigrationDeps,
    private readonly source: MediaStore,
    private readonly target: MediaStore,
    private readonly opts: MigrateOptions,
  ) {
    this.throttle = createThrottle(opts.maxBytesPerSecond ?? 0);
  }

  async posts(refs: { id: string; ext: string }[], onPost: () => void): Promise<void> {
    const queue = [...refs];
    const worker = async () => {
      for (let ref = queue.shift(); ref; ref = queue.shift()) {
        const image = imageName(ref);
        if (!(await this.object(ref.id, image))) this.missing.push(image);
        for (const size of THUMBNAIL_SIZES) await this.object(ref.id, thumbnailName(ref.id, size));
        this.counts.posts++;
        onPost();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, this.opts.parallel ?? 4) }, worker));
  }

  /**
   * One object into the new store, checked; false when neither store has it (a thumbnail not made yet is made on
   * demand).
   */
  private async object(postId: string, name: string): Promise<boolean> {
    const key = mediaKey(name);
    this.tmp ??= await fsp.mkdtemp(path.join(os.tmpdir(), 'imgpost-migrate-'));
    const file = path.join(this.tmp, name);
    try {
      const read = await this.source.get(key);
      if (!read) return (await this.target.head(key)) !== undefined;
      const source = await copyStreamHashed(read.body, file, { sync: false });
      await this.throttle(source.bytes);
      if ((await this.sha256Of(key)) === source.sha256) {
        this.counts.alreadyThere++;
        return true;
      }
      // Journaled like any write, against a delete of the post committing meanwhile.
      const locator = this.target.locator(key);
      this.deps.pending.add(locator, postId);
      await this.target.put(
        key,
        { path: file },
        {
          contentType: MIME_BY_EXT[name.slice(name.lastIndexOf('.') + 1)] ?? 'application/octet-stream',
          sha256: source.sha256,
        },
      );
      const written = await this.sha256Of(key);
      if (written !== source.sha256)
        throw new Error(
          `${key} in ${this.target.location} reads back with sha256 ${written ?? '(none)'}, expected ${source.sha256}`,
        );
      const kept = this.deps.db
        .transaction(() => {
          const exists = this.deps.posts.exists(postId);
          if (exists) this.deps.pending.remove([locator]);
          else this.deps.pending.add(locator, postId);
          return exists;
        })
        .immediate();
      // The post was deleted meanwhile: its copy goes too (the server's delete may have run before the put landed).
      if (!kept) {
        await this.target.delete(key);
        this.deps.pending.remove([locator]);
      }
      this.counts.copied++;
      this.counts.bytes += source.bytes;
      return true;
    } finally {
      await fsp.rm(file, { force: true });
    }
  }

  /** The sha256 of the object's bytes as the new store returns them; undefined when it has none. */
  private async sha256Of(key: string): Promise<string | undefined> {
    const read = await this.target.get(key);
    return read && hashStream(read.body);
  }

  async close(): Promise<void> {
    if (this.tmp) await fsp.rm(this.tmp, { recursive: true, force: true });
  }
}
