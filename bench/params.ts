/**
 * Every parameter of `npm run bench`, in one table with a column per kind of run: `quick` (--quick, a
 * smoke run), `millions` (a full run whose sizes are all 1M posts or more: building and indexing the
 * corpus take most of it, so fewer repetitions) and `full` (any other full run). `by(q, m, f)` is a row;
 * `by(q, f)` has the same value for both full columns. The sections take the `quick` or `full` column.
 * A run's parameters are kept with its results (bench/results.json `params`).
 */
export type Profile = 'quick' | 'millions' | 'full';

/** What a run measured with, as bench/results.json keeps it. */
export interface RunParams {
  hashing: { reps: number; passes: number; jpegs: number; pngs: number };
  reindexReps: Record<string, number>;
  similar: { samples: number; scanBudgetMs: number; maxDiffs: number[] };
  search: { samples: number; sqlBudgetMs: number; reps: number; repMs: number; concurrency: number };
  imageSearch: { reps: number; repMs: number; concurrency: number };
  upload: { sustainMs: number; floorMs: number; concurrency: number };
  /** optional: results files from before these figures existed lack them */
  facets?: { samples: number; reps: number; repMs: number; concurrency: number };
  tags?: { samples: number; plainBudgetMs: number; prefixChars: { min: number; max: number } };
  /** optional: results files from before the figure existed lack it */
  webhookDrain?: { deliveries: number; receivers: number; reps: number };
}

class By<T> {
  constructor(
    readonly quick: T,
    readonly millions: T,
    readonly full: T,
  ) {}
}
function by<T>(quick: T, millions: T, full: T = millions): By<T> {
  return new By(quick, millions, full);
}

/** The seeder's tags are `tag_N`: 1-7 characters type anything from every tag ("t") to a handful ("tag_12"). */
const TAG_PREFIX_CHARS = { min: 1, max: 7 };

const TABLE = {
  /** the corpus sizes and drain length when the flags do not name them */
  defaults: { sizes: by([20_000], [100_000, 1_000_000]), drainDeliveries: by(10_000, 50_000) },
  core: {
    hashing: { reps: by(3, 3, 5), passes: by(3, 10), jpegs: 12, pngs: 4 },
    similar: { samples: by(300, 500, 1000), scanBudgetMs: by(10_000, 45_000, 60_000), maxDiffs: [8, 3] },
    search: {
      samples: by(300, 500, 1000),
      sqlBudgetMs: by(10_000, 45_000, 60_000),
      reps: by(2, 3, 5),
      repMs: by(3000, 10_000),
      concurrency: 8,
    },
    imageSearch: { reps: by(2, 3, 5), repMs: by(3000, 10_000), concurrency: 50 },
    // Alternating windows: with the median of 3 each, drift on the box hits both variants alike.
    facets: { samples: by(150, 300, 500), reps: by(2, 4, 6), repMs: by(3000, 10_000), concurrency: 50 },
    tags: { samples: by(300, 1000, 2000), plainBudgetMs: by(10_000, 45_000, 60_000), prefixChars: TAG_PREFIX_CHARS },
    upload: { sustainMs: by(30_000, 180_000), floorMs: by(10_000, 60_000), concurrency: 8 },
    // Two drains between three anchors: the medians are then the lower drain and the middle anchor.
    webhookDrain: { receivers: 5, reps: by(1, 2) },
  },
  sections: {
    /** a section's corpus unless --sizes names one, its one-client samples, its 8-client window (ms) */
    scale: { posts: by(20_000, 1_000_000), samples: by(200, 1000), ms: by(3000, 10_000) },
    // Four endpoints take turns in three rounds: more samples, shorter windows.
    booru: { samples: by(300, 1200), ms: by(2000, 5000) },
    organization: { reorders: by(5, 10) },
    // Issue 51: notes on 5 % of the posts, 3,000 wiki pages at 1M posts (fewer, at least 50, below), over more tag
    // names than pages so that some common tags have none.
    knowledge: { tags: 10_000, notedShare: 0.05, notesPerPost: 8, wikiPagesPerMillion: 3000 },
    // Many short alternating windows: other sessions load the shared box unevenly, and alternation spreads that
    // over both stores.
    s3Store: { ms: by(4000, 5000), reps: by(2, 6), bigUploads: by(3, 5) },
    // Every clip is uploaded once (none a duplicate), so a window is a count of uploads, not a time.
    videoUploads: { perWindow: by(8, 12), rounds: by(2, 3) },
    /** the share of the corpus that is moving pictures (issue 47 asks for 3 %) */
    videoSearch: { moving: 0.03 },
  },
};

type Column<T> =
  T extends By<infer V>
    ? V
    : T extends readonly unknown[]
      ? T
      : T extends object
        ? { [K in keyof T]: Column<T[K]> }
        : T;

function column<T>(t: T, p: Profile): Column<T> {
  if (t instanceof By) return t[p] as Column<T>;
  if (Array.isArray(t) || typeof t !== 'object' || t === null) return t as Column<T>;
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [k, column(v, p)])) as Column<T>;
}

/** The column a run takes: a full run of millions of posts only takes fewer repetitions. */
export const profileOf = (quick: boolean, sizes: readonly number[]): Profile =>
  quick ? 'quick' : sizes.every((n) => n >= 1_000_000) ? 'millions' : 'full';

export const defaults = (quick: boolean): Column<typeof TABLE.defaults> =>
  column(TABLE.defaults, quick ? 'quick' : 'full');

/** The core figures' parameters for a run of `sizes`. */
export function coreParams(quick: boolean, sizes: readonly number[], drainDeliveries: number): RunParams {
  const c = column(TABLE.core, profileOf(quick, sizes));
  // Reindexing 1M posts takes minutes: one run each there (ours is the fill), three below that.
  const reindexReps = Object.fromEntries(sizes.map((n) => [String(n), quick ? 2 : n > 300_000 ? 1 : 3]));
  return {
    hashing: c.hashing,
    reindexReps,
    similar: c.similar,
    search: c.search,
    imageSearch: c.imageSearch,
    facets: c.facets,
    tags: c.tags,
    upload: c.upload,
    webhookDrain: { deliveries: drainDeliveries, ...c.webhookDrain },
  };
}

/**
 * A scan of every descriptor reads one per post since the corpus has one on every post (issue 49; about 0.13 ms
 * each here, bench/notes/scale.md): some ten seconds at 100k, minutes at 1M, twenty at 10M. Fewer scans at
 * the larger sizes, enough to check the lookup's answers against.
 */
export const robustSamples = (size: number): { samples: number; scans: number } => ({
  samples: 300,
  scans: size >= 5_000_000 ? 1 : size >= 500_000 ? 3 : 10,
});

/** The sections' parameters (`quick` or `full`). */
export const sectionParams = (quick: boolean): Column<typeof TABLE.sections> =>
  column(TABLE.sections, quick ? 'quick' : 'full');
