/**
 * The robust lookup's figure on a kept corpus (bench/load/corpus.ts), as `npm run bench` measures it at each size
 * (bench/scale-figures.ts benchRobustScale: 300 copies of stored descriptors looked up in process, the scan for
 * the first few), with the posts index's size and segments: for comparing two index layouts of one corpus
 * (bench/notes/scale.md). Waits for the index's merges to end first (a reindex merges in the background).
 *
 *   npx tsx bench/robust/corpus-lookup.ts --corpus DIR [--samples 300] [--scans 10]
 */
import { benchRobustScale } from '../scale-figures.ts';
import { headerOf, parseCli } from '../lib/cli.ts';
import { keptCorpusJob } from '../load/corpus.ts';

const { values } = parseCli({
  usage: headerOf(import.meta.url),
  options: {
    corpus: { type: 'string' },
    samples: { type: 'string', default: '300' },
    scans: { type: 'string', default: '10' },
  },
});
if (!values.corpus) throw new Error('--corpus DIR is required');
const { job } = await keptCorpusJob(values.corpus);
try {
  const index = await job.postsIndex.aliasTarget();
  if (!index) throw new Error('the corpus has no posts index');
  const stats = async () =>
    (await job.es.indices.stats({ index, metric: ['store', 'segments', 'merge'] }, { requestTimeout: 600_000 }))._all
      .primaries!;
  for (let s = await stats(); (s.merges?.current ?? 0) > 0; s = await stats())
    await new Promise((r) => setTimeout(r, 2000));
  // Files a merge replaced are released once nothing reads them: a flush and a moment, then the size.
  await job.es.indices.flush({ index }, { requestTimeout: 600_000 });
  await new Promise((r) => setTimeout(r, 5000));
  const s = await stats();
  const figure = await benchRobustScale(job, { samples: Number(values.samples), scans: Number(values.scans) });
  process.stdout.write(
    `${JSON.stringify({ index, storeBytes: s.store?.size_in_bytes, segments: s.segments?.count, ...figure })}\n`,
  );
} finally {
  await job.close();
}
