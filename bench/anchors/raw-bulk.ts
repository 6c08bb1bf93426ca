/**
 * Anchor for reindex throughput: Elasticsearch's own _bulk ingestion of documents prepared in
 * advance. The NDJSON bodies are built before the clock starts (into a file: read back from the page cache,
 * they cost the anchor a copy each), sent straight over fetch with the
 * same batch size and the same two requests in flight as `imgpost reindex`, into an index with the
 * same mapping and the same load settings as reindex() (no replicas; refresh left as the mapping
 * says, since reindex() keeps it on during the load), and answered with only the `errors` flag. What
 * is left is indexing cost alone: the ceiling the reindex command works against.
 */
import fs from 'node:fs';
import type { PostsIndex } from '../../src/elasticsearch/posts-index.ts';
import { readPostsMapping } from '../../src/elasticsearch/posts-index.ts';
import { toPostDocument } from '../../src/elasticsearch/post-document.ts';
import type { PostRepository } from '../../src/kernel/post-repository.ts';
import { nowMs } from '../lib/stats.ts';

export interface PreparedBulk {
  /** the NDJSON bodies one after the other (gigabytes at 10M posts: on disk, not in memory) */
  file: string;
  /** where each body starts in the file, and one past the last */
  offsets: number[];
  docs: number;
  bytes: number;
}

/**
 * Every post as index actions, one NDJSON body per batch, written to `file`; with `every` > 1 only every
 * `every`-th batch (a sample spread over the whole corpus).
 */
export function prepareBulk(posts: PostRepository, batch: number, file: string, every = 1): PreparedBulk {
  const fd = fs.openSync(file, 'w');
  const offsets = [0];
  let docs = 0;
  let bytes = 0;
  let n = 0;
  for (const records of posts.batches(batch)) {
    if (n++ % every !== 0) continue;
    // With their robust descriptors' terms, as reindex() builds them.
    const robust = posts.robust.ofSeqs(records.map((r) => r.seq));
    let text = '';
    for (const r of records)
      text += `{"index":{"_id":${JSON.stringify(r.id)}}}\n${JSON.stringify(toPostDocument(r, robust.get(r.seq)))}\n`;
    const body = Buffer.from(text);
    fs.writeSync(fd, body);
    docs += records.length;
    bytes += body.length;
    offsets.push(bytes);
  }
  fs.closeSync(fd);
  return { file, offsets, docs, bytes };
}

export interface RawBulkRun {
  docs: number;
  ms: number;
  docsPerSec: number;
}

export async function rawBulk(
  esUrl: string,
  postsIndex: PostsIndex,
  prepared: PreparedBulk,
  concurrency = 2,
): Promise<RawBulkRun> {
  const m = readPostsMapping();
  // Not under the posts pattern (<prefix>-posts-v*), so no relay ever treats it as a write target.
  const index = `${postsIndex.prefix}-rawbulk-${Date.now()}`;
  const es = postsIndex.client;
  await es.indices.create({ index, settings: { ...m.settings, number_of_replicas: 0 }, mappings: m.mappings as never });
  try {
    const url = `${esUrl}/${index}/_bulk?filter_path=errors`;
    const file = await fs.promises.open(prepared.file, 'r');
    const started = nowMs();
    let next = 0;
    const worker = async () => {
      while (next < prepared.offsets.length - 1) {
        const i = next++;
        const body = Buffer.allocUnsafe(prepared.offsets[i + 1] - prepared.offsets[i]);
        await file.read(body, 0, body.length, prepared.offsets[i]);
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
        const answer = (await res.json()) as { errors?: boolean };
        if (!res.ok || answer.errors !== false)
          throw new Error(`raw _bulk failed: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker)).finally(() => file.close());
    // The reindex ends with a refresh (everything searchable): so does the anchor.
    await es.indices.refresh({ index });
    const ms = nowMs() - started;
    const count = (await es.count({ index })).count;
    if (count !== prepared.docs) throw new Error(`raw _bulk indexed ${count} of ${prepared.docs} documents`);
    return { docs: prepared.docs, ms, docsPerSec: (prepared.docs / ms) * 1000 };
  } finally {
    await es.indices.delete({ index }, { ignore: [404] });
  }
}
