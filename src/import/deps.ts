/** What an import works with (docs/decisions.md §22): the services it writes through, its options, one item. */
import type { CommentRepository } from '../comments/comment-repository.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import type { PoolService } from '../pools/service.ts';
import type { PostService } from '../posts/service.ts';
import type { Progress } from '../util/progress.ts';
import type { ImportRuns } from './import-runs.ts';
import type { ImportRecord } from './sources/index.ts';

export interface ImportDeps {
  postService: PostService;
  posts: PostRepository;
  unitOfWork: UnitOfWork;
  pools: PoolService;
  comments: CommentRepository;
  /** accounts by name, for --map-users */
  users: { getByName(name: string): { id: number; name: string; permission: number } | undefined };
  runs: ImportRuns;
  tmpDir: string;
}

export interface ImportOptions {
  force: boolean;
  dryRun: boolean;
  mapUsers: boolean;
  progress: (total: number) => Progress;
}

/** One origin post to import and its file (already here: in the archive, or downloaded). */
export interface ImportItem {
  record: ImportRecord;
  file: string;
  /** what the report names it by, when not the file (a live board's post: its address there) */
  label?: string;
}
