import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { esErrors, type EsClient } from './client.ts';
import type { PostDocument } from './post-document.ts';

const MAPPING_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../es-mappings/posts.json');

interface MappingFile {
  mappingVersion: number;
  settings: Record<string, unknown>;
  mappings: Record<string, unknown>;
}

export function readPostsMapping(): MappingFile {
  return JSON.parse(fs.readFileSync(MAPPING_FILE, 'utf8')) as MappingFile;
}

/** One post change for the index: a document to put, or null to remove the post. */
export interface IndexChange {
  postId: string;
  version: number;
  doc: PostDocument | null;
}

/**
 * ELASTICSEARCH_REPLICAS as index settings. A count pins number_of_replicas; a range (`0-1`, `0-all`)
 * lets Elasticsearch expand the replicas to the nodes there are, so one node stays green and a
 * second node gets a copy without anyone touching the index.
 */
export function replicaSettings(spec: string): { number_of_replicas?: number; auto_expand_replicas: string } {
  return /^\d+$/.test(spec)
    ? { number_of_replicas: Number(spec), auto_expand_replicas: 'false' }
    : { auto_expand_replicas: spec };
}

/**
 * How long a bulk write waits for a primary shard that is not there (its node just died and a replica
 * is being promoted). Well under the client's 10 s request time-out, so Elasticsearch answers with a
 * per-item failure the relay retries, instead of the client giving up and retrying on another node
 * (which would double the wait a user's write can see). The default is a minute.
 */
const WRITE_WAIT = '5s';

/** The parts of a bulk answer that apply() reads (Elasticsearch drops the rest before sending). */
const BULK_ANSWER = ['errors', 'items.*.status', 'items.*.error', 'items.*.result'];

/**
 * How long one request of a bulk load (`imgpost reindex`) may take. The client's 10 s suit a user's write; a
 * thousand documents with a robust descriptor each took longer than that on a loaded node, and the load failed
 * after a whole index's work (bench/notes/scale.md). A load is a job of its own: it waits.
 */
export const BULK_LOAD_TIMEOUT_MS = 300_000;

/**
 * How long the list of write targets is trusted; `imgpost reindex` lets more than this pass between
 * creating its index and its final catch-up, and between closing the previous index and deleting it.
 */
export const TARGETS_TTL_MS = 1000;

/**
 * The posts index behind its alias. Reads go to the alias. Writes go to every concrete posts index
 * (normally one; two while `imgpost reindex` builds the next), with the post's version as an
 * external version so a replayed or late change never overwrites a newer one.
 */
export class PostsIndex {
  readonly alias: string;
  readonly pattern: string;
  private targets: { names: string[]; at: number } | null = null;

  constructor(
    readonly client: EsClient,
    readonly prefix: string,
    /** ELASTICSEARCH_REPLICAS */
    readonly replicas = '0-1',
  ) {
    this.alias = `${prefix}-posts`;
    this.pattern = `${prefix}-posts-v*`;
  }

  /** Creates the first versioned index and the alias when the alias does not exist yet; true if it did. */
  async ensure(): Promise<boolean> {
    if (await this.client.indices.existsAlias({ name: this.alias })) return false;
    const name = await this.createVersionedIndex();
    try {
      await this.client.indices.updateAliases({ actions: [{ add: { index: name, alias: this.alias } }] });
    } catch (err) {
      // Another process won the race: keep its alias, drop ours.
      await this.client.indices.delete({ index: name }, { ignore: [404] });
      if (!(await this.client.indices.existsAlias({ name: this.alias }))) throw err;
      return false;
    }
    this.targets = null;
    return true;
  }

  /**
   * Puts ELASTICSEARCH_REPLICAS on every index behind the alias whose replica setting differs (a
   * dynamic setting: no reindex needed). Returns the indices it changed. The server does this at start-up.
   */
  async applyReplicas(): Promise<string[]> {
    const keys = ['index.number_of_replicas', 'index.auto_expand_replicas'];
    const res = await this.client.indices.getSettings({
      index: this.alias,
      name: keys,
      flat_settings: true,
      include_defaults: true,
    });
    const want = replicaSettings(this.replicas);
    const changed: string[] = [];
    for (const [index, s] of Object.entries(res)) {
      const get = (k: string) =>
        String(
          (s.settings as Record<string, unknown> | undefined)?.[k] ??
            (s.defaults as Record<string, unknown> | undefined)?.[k] ??
            '',
        );
      const same =
        get('index.auto_expand_replicas') === want.auto_expand_replicas &&
        (want.number_of_replicas === undefined || Number(get('index.number_of_replicas')) === want.number_of_replicas);
      if (same) continue;
      await this.client.indices.putSettings({ index, settings: want });
      changed.push(index);
    }
    return changed;
  }

  async createVersionedIndex(overrides: Record<string, unknown> = {}): Promise<string> {
    const m = readPostsMapping();
    const name = `${this.prefix}-posts-v${m.mappingVersion}-${Date.now()}${Math.floor(Math.random() * 1000)}`;
    await this.client.indices.create({
      index: name,
      settings: { ...m.settings, ...replicaSettings(this.replicas), ...overrides },
      mappings: m.mappings as never,
    });
    this.targets = null;
    return name;
  }

  async concreteIndices(): Promise<string[]> {
    const res = await this.client.indices.get({ index: this.pattern, expand_wildcards: 'open' }, { ignore: [404] });
    return Object.keys(res ?? {}).sort();
  }

  async aliasTarget(): Promise<string | undefined> {
    const res = await this.client.indices.getAlias({ name: this.alias }, { ignore: [404] });
    return Object.keys(res ?? {})[0];
  }

  /**
   * Adds the fields of the current mapping that the indices behind the alias lack (new fields only:
   * Elasticsearch takes those without a reindex; a changed field still needs one). Mapping 4's
   * `favorites` and `favorited_by` arrive this way, so documents carrying them are not refused by an
   * older, strict index. Returns the fields added.
   */
  async addMissingFields(): Promise<string[]> {
    const wanted = (readPostsMapping().mappings as { properties: Record<string, unknown> }).properties;
    const current = await this.client.indices.getMapping({ index: this.alias });
    const added = new Set<string>();
    for (const [index, { mappings }] of Object.entries(current)) {
      const have = (mappings as { properties?: Record<string, unknown> }).properties ?? {};
      const missing = Object.fromEntries(Object.entries(wanted).filter(([field]) => !(field in have)));
      if (Object.keys(missing).length === 0) continue;
      await this.client.indices.putMapping({ index, properties: missing as never });
      for (const field of Object.keys(missing)) added.add(field);
    }
    return [...added].sort();
  }

  /** The mapping version the index behind the alias was created with (from its name). */
  async builtMappingVersion(): Promise<number | undefined> {
    const target = await this.aliasTarget();
    const m = target === undefined ? null : /-posts-v(\d+)-\d+$/.exec(target);
    return m ? Number(m[1]) : undefined;
  }

  private async writeTargets(): Promise<string[]> {
    if (!this.targets || Date.now() - this.targets.at > TARGETS_TTL_MS) {
      // Timed from before the request: a list that may predate an index created meanwhile expires
      // no later than TARGETS_TTL_MS after that index's creation (what `imgpost reindex` waits for).
      const at = Date.now();
      const names = await this.concreteIndices();
      this.targets = { names: names.length ? names : [this.alias], at };
    }
    return this.targets.names;
  }

  /** Applies changes with one bulk request; version conflicts (a newer change already there) are success. */
  async apply(
    changes: IndexChange[],
    opts: {
      refresh?: boolean | 'wait_for';
      targets?: string[];
      retried?: boolean;
      /** how long the request may take (default: the client's); a bulk load's are long (BULK_LOAD_TIMEOUT_MS) */
      requestTimeout?: number;
    } = {},
  ): Promise<void> {
    if (changes.length === 0) return;
    const targets = opts.targets ?? (await this.writeTargets());
    const operations: unknown[] = [];
    for (const index of targets) {
      // Only the alias is named when no posts index exists (deleted behind the service's back): then
      // the write must fail and wait for the relay, not auto-create an unmapped index under the alias's name.
      const requireAlias = index === this.alias ? { require_alias: true } : {};
      for (const c of changes) {
        const meta = {
          _index: index,
          _id: c.postId,
          version: c.version,
          version_type: 'external' as const,
          ...requireAlias,
        };
        if (c.doc) operations.push({ index: meta }, c.doc);
        else operations.push({ delete: meta });
      }
    }
    // Only what is read below comes back: a full item is ~10 fields, so a 1,000-document bulk answered
    // ~170 KB for the client to parse, on the thread that builds the next batch (reindex, relay).
    const res = await this.client.bulk(
      {
        operations,
        refresh: opts.refresh ?? false,
        timeout: WRITE_WAIT,
        filter_path: BULK_ANSWER,
      },
      opts.requestTimeout ? { requestTimeout: opts.requestTimeout } : {},
    );
    if (!res.errors) return;
    const items = res.items.map((item) => Object.values(item)[0]);
    // A version conflict answers at once, without waiting for the refresh the caller asked for, while the
    // newer write that won may not be searchable yet: refresh so "applied" still means "searchable".
    if (opts.refresh && items.some((r) => r?.status === 409)) await this.client.indices.refresh({ index: targets });
    const failures = res.items
      .map((item) => Object.values(item)[0])
      .filter((r) => r && r.error && r.status !== 409 && !(r.status === 404 && r.result === 'not_found'));
    if (failures.length > 0) {
      // A reindex closed or deleted an index listed in stale targets: list them again and retry once,
      // so a write made just after the alias swap still lands (and is searchable) before its response.
      const gone = (r: (typeof failures)[number]) =>
        r?.error?.type === 'index_not_found_exception' || r?.error?.type === 'index_closed_exception';
      if (!opts.targets && !opts.retried && failures.every(gone)) {
        this.targets = null;
        return this.apply(changes, { ...opts, retried: true });
      }
      const first = failures[0]!;
      // An index that vanished mid-flight (a reindex just dropped it) is retried against fresh targets.
      if (first.error?.type === 'index_not_found_exception') this.targets = null;
      throw new Error(
        `elasticsearch refused ${failures.length} change(s): ${first.error?.type}: ${first.error?.reason}`,
      );
    }
  }

  async refresh(): Promise<void> {
    await this.client.indices.refresh({ index: this.alias });
  }

  forgetTargets(): void {
    this.targets = null;
  }
}

export function isVersionConflict(err: unknown): boolean {
  return err instanceof esErrors().ResponseError && err.statusCode === 409;
}
