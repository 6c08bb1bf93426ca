import type { HashingResult } from './hashing.ts';
import type { RunParams } from './params.ts';
import type {
  HeapSummary,
  PageViewFigure,
  PostsJsonResult,
  RobustScaleResult,
  StorageResult,
} from './scale-figures.ts';
import type { CpuSplit } from './lib/cpu.ts';
import type { FacetsResult, ImageSearchResult } from './image-search.ts';
import type { Machine } from './lib/env.ts';
import type { RssSummary } from './memory.ts';
import type { ReindexResult } from './reindex.ts';
import type { SearchResult } from './search.ts';
import type { SimilarResult } from './similar.ts';
import type { TagFigure } from './tags.ts';
import type { UploadResult } from './upload.ts';
import type { WebhookDrainResult } from './webhook-drain.ts';

/** Everything one run measured: written to bench/results.json, read by the dashboard (bench/dashboard.ts). */
export interface SizeResults {
  posts: number;
  seedSeconds: number;
  reindex?: ReindexResult;
  similar?: SimilarResult;
  search?: SearchResult;
  imageSearch?: ImageSearchResult;
  /** cores used by each process while /image/search was loaded (the measured repetitions) */
  imageSearchCpu?: CpuSplit;
  /** `/image/search` with all three facets against the same requests without (docs/decisions.md §11) */
  facets?: FacetsResult;
  /** GET /api/tag prefix autocomplete against its bare SQL and a plain GROUP BY count (docs/decisions.md §10) */
  tags?: TagFigure & { tagNames: number };
  upload?: UploadResult;
  /** server RSS while serving /api/post/search and /image/search */
  memory?: RssSummary & { idleMiB: number };
  /** issue 41: the robust lookup against its scan, /posts.json, bytes per post, the engine's heap, page views */
  robust?: RobustScaleResult;
  postsJson?: PostsJsonResult;
  storage?: StorageResult;
  esHeap?: HeapSummary;
  pageViews?: PageViewFigure;
  error?: string;
}

export interface RunResults {
  mode: 'full' | 'quick';
  command: string;
  startedAt: string;
  finishedAt?: string;
  seconds?: number;
  machine: Machine;
  loadAverageEnd?: number[];
  /** the 1-minute load average sampled every 5 s through the run: other work on the box */
  loadDuring?: { median: number; max: number; samples: number };
  params: RunParams;
  hashing?: HashingResult;
  hashingError?: string;
  webhookDrain?: WebhookDrainResult;
  webhookDrainError?: string;
  sizes: SizeResults[];
  /** figures carried over from an earlier run (`--carry-size-free`), by dashboard key: when and at which commit */
  carried?: Record<string, { date: string; commit: string }>;
}
