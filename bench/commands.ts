/**
 * The figures and tools that run on their own, outside the suite: `npm run bench -- NAME [its flags]`
 * (or `--only NAME`) runs bench/NAME.ts as a child process with those flags; `NAME --help` prints its
 * usage. Each is also a script of its own (`npx tsx bench/NAME.ts`), as the notes that name them ran it.
 * The suite's core figures and feature sections are not here: see bench/suite.ts and bench/sections.ts.
 */
export const COMMANDS: Record<string, string> = {
  // The data and its rendering: nothing is measured.
  dashboard: 'rewrites bench/RESULTS.md from the data files',
  render: "rewrites a run's report from its results file (bench/results.json by default)",
  'scale-record': 'records a kept page-view run into its size in bench/scale.json (--page-views LABEL)',
  'load/render-page-views': 'rewrites bench/notes/page-views.md and the dashboard from bench/load/pageviews.json',
  'lib/profile-summary': 'where a V8 CPU profile (.cpuprofile) spent its samples',
  // One core figure on a corpus of its own.
  hashing: 'hashing throughput: ours against the floor and the original (REPS PASSES)',
  reindex: 'reindex throughput against a raw _bulk',
  'whole-uploads': 'sustained whole uploads/s against the same image work alone (--corpus-root for a kept corpus)',
  tags: 'tag autocomplete against its SQL and a plain count',
  video: "reading a 30-s 720p clip (probe, frames, poster hash) against ffprobe and one frame's decode (REPS)",
  import: 'posts/s importing a gallery-dl archive against the same files bare; /image/search p99 before and during',
  // Studies kept in bench/notes/.
  favorites: 'favorite toggles and favorites sorts against edits and the upload-date sort',
  'tag-governance': 'an implication applied in the background job; tagAny against tagInclude',
  'facets-only': '/image/search with and without facets, optionally against a second server (--before)',
  'facet-variants': 'the facet request variants straight to the engine',
  'image-search-profile': 'a CPU profile of the server under /image/search',
  'robust-lookup': 'the robust lookup against a scan of every descriptor (POSTS QUERIES)',
  'webhook-client-profile': 'where the dispatcher spends its CPU with each HTTP client',
  'webhook-drain-ab': "this checkout's dispatcher against another checkout's, drained in turns in one process",
  'webhook-drain-once': 'one webhook drain as one JSON line, for comparing runtimes or commits',
  'webhook-send-loop': 'CPU per webhook POST for each HTTP client, without a dispatcher',
  // Loads.
  'load/corpus': 'builds (or resumes) a kept corpus: --dir DIR --posts N',
  'load/page-views': 'the page-view load: simulated people browsing the gallery',
  'load/run': 'the mixed-traffic load with webhooks',
  // The robust near-duplicate evaluation (bench/robust/README.md).
  'robust/build-set': 'builds the evaluation set',
  'robust/evaluate': 'recall and false matches per transform, and hashing throughput',
  'robust/band-cost': "what the descriptor's optional parts cost per image",
  'robust/candidates': 'how the candidate cap was chosen',
  'robust/check-index': 'checks the Elasticsearch term scheme on the evaluation set',
  'robust/descriptor-exact': 'bit-exactness of the descriptor across a change (save|check FILE)',
  'robust/lookup-split': "where a robust lookup's time goes",
  'robust/misses': 'why copies miss their original under the served rule',
  'robust/one-decode': "throughput of the descriptor from the thumbnails' decode",
  'robust/watermark-median': 'a median filter before the descriptor, for the watermark row',
};
