import type { Logger } from '../log.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { Loop } from '../util/loop.ts';
import type { TagJobRepository } from './job-repository.ts';
import { retagPost } from './retag.ts';

export interface ImplicationRunnerDeps {
  posts: PostRepository;
  /** each pass is one unit of work; its update rows join the relay's next pass */
  unitOfWork: UnitOfWork;
  jobs: TagJobRepository;
  log: Logger;
}

/** Posts read per pass at most. */
export const BATCH = 300;
/**
 * The work of one pass (one transaction), in ms of the event loop: the job runs on the server's
 * thread, so a request arriving during a pass waits for it. A whole batch per pass held the loop
 * long enough to multiply `/image/search`'s p99 while the job ran (bench/notes/community.md); a slice
 * bounds that wait.
 */
export const SLICE_MS = 25;

/**
 * Applies new implications to existing posts (docs/decisions.md §15), in the server's background, one
 * job at a time. Each pass is one transaction that edits its posts (a version and an update
 * event each, through the commit step) and moves the job's cursor: a crash loses at most the
 * batch under way, which then simply runs again. Posts written after the job began were stored
 * under the rule already (the kernel resolves every write), so the job stops at its `lastSeq`.
 */
export class ImplicationRunner {
  /** start() at server start-up (resumes an interrupted job), stop() at shutdown */
  readonly loop: Loop;

  constructor(private readonly deps: ImplicationRunnerDeps) {
    this.loop = new Loop({
      pass: () => this.runBatch(),
      intervalMs: 5_000,
      backoffMs: (n) => Math.min(30_000, 500 * 2 ** n),
      log: deps.log,
      failureMessage: 'tag implication batch failed; retrying',
    });
  }

  /** A job was made: run soon. */
  kick(): void {
    this.loop.kick();
  }

  /** One batch of the oldest job. Resolves to 0 (go on at once) while there is work, else nothing. */
  runBatch(): number | void {
    const { unitOfWork, posts, jobs } = this.deps;
    const job = jobs.next();
    if (!job) return;
    const changed = unitOfWork.writeInBackground((tx) => {
      // Posts carrying the tag, or anything implying it, that the job has not reached yet.
      const sources = [job.tag, ...posts.tagRules.impliers(job.tag)];
      const seqs = posts.tagRules.postsCarrying(sources, job.cursor, job.lastSeq, BATCH);
      if (seqs.length === 0) {
        jobs.finish(job.id);
        return -1;
      }
      const initiator = { id: job.initiatorId ?? 0, name: job.initiatorName ?? 'system' };
      const started = performance.now();
      let n = 0;
      let scanned = 0;
      for (const seq of seqs) {
        if (retagPost(tx, posts, seq, initiator)) n++;
        scanned++;
        if (performance.now() - started >= SLICE_MS) break;
      }
      jobs.advance(job.id, seqs[scanned - 1], scanned, n);
      return n;
    });
    if (changed < 0)
      this.deps.log.info('tag implication applied', { tag: job.tag, implies: job.implies, changed: job.changed });
    return 0;
  }
}
