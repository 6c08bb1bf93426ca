import type { RunResults } from './results.ts';
import { fmt } from './lib/stats.ts';

/**
 * The notes under the table: what each figure measures and, where a goal is missed, why and what
 * would close it. The explanations are written from what the code does; the numbers are this run's.
 */
export function notesFor(results: RunResults): string[] {
  const out: string[] = [];
  const largest = [...results.sizes].filter((s) => !s.error).sort((a, b) => b.posts - a.posts)[0];
  const h = results.hashing;
  if (h) {
    out.push(
      `- **Hashing.** Ours is the piscina pool (2 workers) doing what an upload needs: magic-byte sniffing, a metadata read with the pixel limit, a strict decode (\`failOn: 'warning'\`), greyscale 32×32 and the DCT. ` +
        `The original's path is sharp-phash 2.x reproduced in \`bench/anchors/sharp-phash-original.ts\` (a full 32×32 DCT over arrays of arrays on the main thread; cosines tabled at module load, as the package does). ` +
        `The floor is sharp's decode + greyscale + resize alone. All three read the file and run with ${h.concurrency} calls in flight; ours and the original gave ${h.hashesAgree ? 'identical hashes for every image' : '**different hashes for some images**'}. ` +
        (h.oursVsFloor < 0.8
          ? `Ours reached ${fmt(h.oursVsFloor * 100)} % of the floor, below the 80 % goal: the worker reads the header twice (metadata, then decode) and pays a message round trip per image; the floor does neither. Keeping more tasks in flight per worker, or reusing the metadata pass's decoder, would close most of the gap.`
          : `Ours reached ${fmt(h.oursVsFloor * 100)} % of the floor: the validation and the DCT cost little next to the decode.`),
    );
  }
  for (const s of results.sizes) {
    if (!s.similar) continue;
    const wide = s.similar.rows.find((r) => r.maxDiff === 8);
    const narrow = s.similar.rows.find((r) => r.maxDiff === 3);
    out.push(
      `- **Similar lookup, ${s.posts.toLocaleString('en-US')} posts.** \`findWithin\` in process, one lookup at a time (no HTTP, no image hashing), half the queries near planted clusters. ` +
        `It ${s.similar.agrees ? 'returned exactly' : '**did not return exactly**'} the posts the exhaustive scan found on ${s.similar.checkedQueries} checked queries. ` +
        (wide ? `At maxDiff 8 a query averages ${fmt(wide.meanMatches)} matches; ` : '') +
        (narrow ? `at maxDiff 3, ${fmt(narrow.meanMatches)}. ` : '') +
        'The string scan holds every hash in memory already (the original read them from its database per request, so it was slower still).',
    );
  }
  if (largest?.search) {
    const x = largest.search;
    out.push(
      `- **Post search, ${largest.posts.toLocaleString('en-US')} posts.** The queries cycle through tag, text, tag+date, text+date and tag+text+date, 24 per page, ordered by id (the default). Median latency per shape, ours / SQL: ` +
        Object.entries(x.perShapeP50)
          .map(([shape, v]) => `${shape} ${fmt(v.ours)} / ${fmt(v.sql)} ms`)
          .join('; ') +
        `. Elasticsearch and SQL agreed on the total count for ${x.countsAgree} of ${x.countsChecked} checked queries.`,
    );
  }
  if (largest?.upload) {
    const x = largest.upload;
    out.push(
      `- **Uploads.** Each upload is multipart parsing, the pool's validation and hash, the WebP thumbnails (also on the pool), the near-duplicate query, the SQLite transaction, then indexing with \`refresh=wait_for\` before the 201, then a GET of the new post. ` +
        (x.ratio < 0.6
          ? `At ${fmt(x.ratio * 100)} % of hashing alone the goal is missed: the same two pool workers also encode the thumbnails, and every upload waits for Elasticsearch's next refresh (up to 1 s) while holding a client. More clients hide the refresh wait, but the thumbnails are CPU on the same two cores; making them after the response (or in a separate, lower-priority pool) would close the gap.`
          : `At ${fmt(x.ratio * 100)} % of hashing alone the goal is met.`),
    );
  }
  if (largest?.memory) {
    const m = largest.memory;
    out.push(`- **Memory.** VmRSS of the server process alone, sampled every 200 ms through both search phases; its peak since start (VmHWM, uploads not yet run) was ${fmt(m.peakMiB * (2 ** 20 / 1e6))} MB.`);
  }
  return out;
}
