import type { Logger } from '../log.ts';
import { TagRepository } from '../kernel/tag-repository.ts';
import { TagService } from '../tags/service.ts';
import { TagGovernance } from '../tags/governance.ts';
import { TagJobRepository } from '../tags/job-repository.ts';
import { ImplicationRunner } from '../tags/implication-runner.ts';
import type { PostParts } from './post-parts.ts';

/** The tags: their table, autocomplete, and aliases and implications with the job that applies them. */
export interface TagParts {
  tagRepository: TagRepository;
  tags: TagService;
  tagGovernance: TagGovernance;
  /** applies new implications to existing posts; only the server starts it */
  implicationRunner: ImplicationRunner;
}

export function wireTags(posts: PostParts, log: Logger): TagParts {
  const { db, postRepository, unitOfWork } = posts;
  const tagRepository = new TagRepository(db);
  const tags = new TagService({ db, tags: tagRepository });
  // Governance queues the jobs the runner applies; both read the one job table.
  const tagJobs = new TagJobRepository(db);
  const implicationRunner = new ImplicationRunner({ posts: postRepository, unitOfWork, jobs: tagJobs, log });
  const tagGovernance = new TagGovernance({
    db,
    posts: postRepository,
    tags: tagRepository,
    unitOfWork,
    jobs: tagJobs,
    implications: implicationRunner,
  });
  return { tagRepository, tags, tagGovernance, implicationRunner };
}
