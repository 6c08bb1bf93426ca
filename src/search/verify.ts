import { isDeepStrictEqual } from 'node:util';
import { keptSource, toPostDocument } from '../elasticsearch/post-document.ts';
import type { PostsIndex } from '../elasticsearch/posts-index.ts';
import type { Outbox } from '../kernel/outbox.ts';
import type { PostRecord } from '../kernel/post-record.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { OutboxRelay } from '../elasticsearch/outbox-relay.ts';
import { silentProgress, type Progress } from '../util/progress.ts';

export interface VerifyDeps {
  postsIndex: PostsIndex;
  postRepository: PostRepository;
  /** a repair that raises a post's version commits it as a 'reindex' change, one unit of work */
  unitOfWork: UnitOfWork;
  /** a drifted post whose change the outbox still holds is looked at again once that change is applied */
  outbox: Pick<Outbox, 'pendingFor'>;
  relay: Pick<OutboxRelay, 'apply'>;
}

export type DriftKind = 'missing' | 'stale' | 'orphan';
export interface Drift {
  kind: DriftKind;
  postId: string;
  /** why a stale document differs: 'version' and/or the differing fields */
  reason?: string;
}

export interface VerifyResult {
  index: string;
  posts: number;
  documents: number;
  drift: Drift[];
  repaired: number;
  clean: boolean;
  /**
   * posts whose stored file's MD5 and size the server's backfill has not reached yet (docs/decisions.md §20);
   * not drift: the server fills them in
   */
  fileFactsPending: number;
}

export interface VerifyOptions {
  repair?: boolean;
  batch?: number;
  progress?: (label: string, total: number) => Progress;
  /** drift is checked again after this pause, so changes still on their way through the relay are not reported */
  recheckMs?: number;
}

interface EsDoc {
  found: boolean;
  version?: number;
  source?: Record<string, unknown>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** mget is real-time (it reads the translog), so no refresh is needed to see the latest write. */
async function fetchDocs(postsIndex: PostsIndex, index: string, ids: string[]): Promise<Map<string, EsDoc>> {
  const out = new Map<string, EsDoc>();
  if (ids.length === 0) return out;
  const res = await postsIndex.client.mget<Record<string, unknown>>({ index, ids });
  for (const d of res.docs) {
    const doc = d as { _id: string; found?: boolean; _version?: number; _source?: Record<string, unknown> };
    out.set(doc._id, { found: doc.found === true, version: doc._version, source: doc._source });
  }
  return out;
}

function compare(post: PostRecord, robust: Uint8Array | undefined, doc: EsDoc | undefined): Drift | undefined {
  if (!doc?.found) return { kind: 'missing', postId: post.id };
  // Fields the index does not keep in _source are compared through robust_digest (post-document.ts); an index of
  // an older mapping that still keeps them is compared the same way.
  const expected = keptSource(toPostDocument(post, robust) as unknown as Record<string, unknown>);
  const source = keptSource(doc.source ?? {});
  const fields = Object.keys({ ...expected, ...source }).filter((k) => !isDeepStrictEqual(expected[k], source[k]));
  const reasons = [...(doc.version !== post.version ? [`version ${doc.version} != ${post.version}`] : []), ...fields];
  return reasons.length ? { kind: 'stale', postId: post.id, reason: reasons.join(', ') } : undefined;
}

/** Every document id in the index, walked with a point-in-time (no result-window limit). */
async function* indexIds(postsIndex: PostsIndex, index: string, size: number): AsyncGenerator<string[]> {
  const es = postsIndex.client;
  let pit = (await es.openPointInTime({ index, keep_alive: '2m' })).id;
  try {
    let after: unknown[] | undefined;
    for (;;) {
      const res = await es.search({
        pit: { id: pit, keep_alive: '2m' },
        size,
        sort: [{ _shard_doc: 'asc' }] as never,
        _source: false,
        track_total_hits: false,
        ...(after ? { search_after: after as never } : {}),
      });
      if (res.pit_id) pit = res.pit_id;
      const hits = res.hits.hits;
      if (hits.length === 0) return;
      yield hits.map((h) => h._id!);
      after = hits[hits.length - 1].sort;
    }
  } finally {
    await es.closePointInTime({ id: pit }).catch(() => undefined);
  }
}

async function scan(
  deps: VerifyDeps,
  index: string,
  opts: VerifyOptions,
): Promise<{ posts: number; documents: number; drift: Drift[] }> {
  const batch = opts.batch ?? 1000;
  const drift: Drift[] = [];
  const totalPosts = deps.postRepository.count();
  const progress = opts.progress?.('posts', totalPosts) ?? silentProgress;
  let posts = 0;
  for (const records of deps.postRepository.batches(batch)) {
    const docs = await fetchDocs(
      deps.postsIndex,
      index,
      records.map((p) => p.id),
    );
    const robust = deps.postRepository.robust.ofSeqs(records.map((p) => p.seq));
    for (const post of records) {
      const d = compare(post, robust.get(post.seq), docs.get(post.id));
      if (d) drift.push(d);
    }
    posts += records.length;
    progress.update(posts, Math.max(posts, totalPosts));
  }
  progress.done();

  const count = (await deps.postsIndex.client.count({ index })).count;
  const docsProgress = opts.progress?.('documents', count) ?? silentProgress;
  let documents = 0;
  for await (const ids of indexIds(deps.postsIndex, index, Math.min(batch * 5, 10_000))) {
    const known = deps.postRepository.existingIds(ids);
    for (const id of ids) if (!known.has(id)) drift.push({ kind: 'orphan', postId: id });
    documents += ids.length;
    docsProgress.update(documents, Math.max(documents, count));
  }
  docsProgress.done();
  return { posts, documents, drift };
}

/**
 * Looks at the drifted posts again, one fresh read each, and keeps what still drifts. A change the
 * outbox still holds is not drift: it is on its way (a live server's relay may be behind, or no
 * server runs). Those rows are applied first — the same idempotent, versioned write the relay makes,
 * so doing it beside the relay is harmless — and the posts then compared as they are.
 */
async function recheck(deps: VerifyDeps, index: string, drift: Drift[]): Promise<Drift[]> {
  const ids = [...new Set(drift.map((d) => d.postId))];
  const pending = deps.outbox.pendingFor(ids);
  if (pending.length > 0) await deps.relay.apply(pending);
  const docs = await fetchDocs(deps.postsIndex, index, ids);
  const posts = new Map(deps.postRepository.getManyById(ids).map((p) => [p.id, p]));
  const out: Drift[] = [];
  for (const id of ids) {
    const post = posts.get(id);
    const doc = docs.get(id);
    if (!post) {
      if (doc?.found) out.push({ kind: 'orphan', postId: id });
      continue;
    }
    const d = compare(post, deps.postRepository.robust.ofId(id), doc);
    if (d) out.push(d);
  }
  return out;
}

/**
 * Puts one post's current record into the index whatever the index holds. A document altered or
 * deleted behind our back may carry a version (or tombstone) at or above the post's, which an
 * external-version write would silently lose to. So: a plain write first, which always lands and
 * reports the version it reached; if that is above the post's, the post's version is raised to it
 * (with a 'reindex' outbox row, so every index, e.g. one a reindex is building, follows); then the
 * document is written again with that version as external_gte, leaving index and SQLite agreeing.
 */
async function forceIndex(deps: VerifyDeps, index: string, postId: string): Promise<boolean> {
  const es = deps.postsIndex.client;
  for (let attempt = 0; attempt < 3; attempt++) {
    const post = deps.postRepository.getById(postId);
    if (!post) return true; // deleted meanwhile: the relay removes it
    const plain = await es.index({
      index,
      id: post.id,
      document: toPostDocument(post, deps.postRepository.robust.ofId(post.id)),
    });
    let version = post.version;
    if (plain._version > post.version) {
      // In the background: the document is written right below, with the raised version.
      const raised = deps.unitOfWork.writeInBackground((tx) => {
        const changed = deps.postRepository.raiseVersion(post.id, post.version, plain._version);
        if (changed) tx.reindexed({ ...post, version: plain._version });
        return changed;
      });
      if (!raised) continue; // the post changed under us: start over with its new state
      version = plain._version;
    }
    try {
      await es.index({
        index,
        id: post.id,
        document: toPostDocument({ ...post, version }, deps.postRepository.robust.ofId(post.id)),
        version,
        version_type: 'external_gte',
      });
    } catch (err) {
      // A newer change already landed: it carries the current record, which is what we wanted.
      if ((err as { statusCode?: number }).statusCode !== 409) throw err;
    }
    return true;
  }
  return false;
}

async function repair(deps: VerifyDeps, index: string, drift: Drift[]): Promise<number> {
  let repaired = 0;
  for (const d of drift) {
    if (d.kind === 'orphan') {
      await deps.postsIndex.client.delete({ index, id: d.postId }, { ignore: [404] });
      repaired++;
    } else if (await forceIndex(deps, index, d.postId)) repaired++;
  }
  await deps.postsIndex.client.indices.refresh({ index });
  return repaired;
}

/**
 * Compares SQLite (the source of truth) with the index behind the alias: posts missing from the
 * index, documents whose version or content differ from the current record (stale), and documents
 * of posts that no longer exist (orphans). With `repair`, fixes them and verifies again.
 */
export async function verify(deps: VerifyDeps, opts: VerifyOptions = {}): Promise<VerifyResult> {
  const index = await deps.postsIndex.aliasTarget();
  if (!index) throw new Error(`the alias ${deps.postsIndex.alias} does not exist; run \`imgpost reindex\``);
  const first = await scan(deps, index, opts);
  const counts = (f: typeof first) => ({
    index,
    posts: f.posts,
    documents: f.documents,
    fileFactsPending: deps.postRepository.files.countMissing(),
  });
  let drift = first.drift;
  if (drift.length > 0) {
    await sleep(opts.recheckMs ?? 1500);
    drift = await recheck(deps, index, drift);
  }
  let repaired = 0;
  if (opts.repair && drift.length > 0) {
    repaired = await repair(deps, index, drift);
    const after = await recheck(deps, index, drift);
    return { ...counts(first), drift, repaired, clean: after.length === 0 };
  }
  return { ...counts(first), drift, repaired, clean: drift.length === 0 };
}
