import type { Db } from '../db/sqlite.ts';
import { AppError, invalid } from '../errors.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { TagCategory } from '../kernel/post-record.ts';
import type { TagCount, TagRepository } from '../kernel/tag-repository.ts';
import type { AliasRow } from '../kernel/tag-rules.ts';
import type { Initiator, UnitOfWork } from '../kernel/unit-of-work.ts';
import type { TagJob, TagJobRepository } from './job-repository.ts';
import { retagPost } from './retag.ts';

export interface GovernanceDeps {
  db: Db;
  posts: PostRepository;
  /** categories (docs/decisions.md §19) */
  tags: TagRepository;
  /** an alias retags its posts as one unit of work */
  unitOfWork: UnitOfWork;
  jobs: TagJobRepository;
  /** the implication runner: woken when a new job waits */
  implications: { kick(): void };
}

const reject = (path: string, message: string) => invalid([path], message);

/**
 * Aliases and implications (docs/decisions.md §15): the checks that keep the vocabulary sound, and the
 * retagging of existing posts. Aliases retag at once, in the request's transaction (posts carrying
 * a misspelling are few); implications can touch any number of posts, so a durable job does it.
 */
export class TagGovernance {
  constructor(private readonly deps: GovernanceDeps) {}

  private get rules() {
    return this.deps.posts.tagRules;
  }

  putAlias(name: string, target: string, by: Initiator): { name: string; target: string; retagged: number } {
    const { unitOfWork, posts } = this.deps;
    // Answered without waiting for the index: the retagged posts follow with the relay's next pass.
    const retagged = unitOfWork.writeInBackground((tx) => {
      const rules = this.rules;
      if (name === target) throw reject('target', 'a tag cannot be an alias of itself');
      if (rules.isAlias(target))
        throw reject(
          'target',
          `the target "${target}" is itself an alias (of "${rules.canonical(target)}"); alias the target it names`,
        );
      if (rules.aliasesOf(name).length > 0)
        throw reject('name', `"${name}" is the target of other aliases, so it cannot become an alias`);
      // A target nobody has used yet is created (docs/decisions.md §19): rules come before the content.
      posts.ensureTags([target]);
      if (rules.hasImplications(name))
        throw reject('name', `"${name}" takes part in implications; remove them before making it an alias`);
      rules.putAlias(name, target, by.id);
      let n = 0;
      for (const seq of rules.postsCarrying([name], 0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER))
        if (retagPost(tx, posts, seq, by)) n++;
      return n;
    });
    return { name, target, retagged };
  }

  deleteAlias(name: string): void {
    if (!this.rules.deleteAlias(name)) throw new AppError('not_found', 'alias not found');
  }

  listAliases(offset: number, limit: number): { count: number; data: AliasRow[] } {
    return this.deps.db.transaction(() => ({
      count: this.rules.aliasCount(),
      data: limit === 0 ? [] : this.rules.aliasPage(offset, limit),
    }))();
  }

  /** Makes `name` imply `other`; a new one starts a job applying it to the posts there are. */
  putImplication(name: string, other: string, by: Initiator): { tag: string; implies: string; job: TagJob | null } {
    const { db, posts, jobs } = this.deps;
    const result = db
      .transaction(() => {
        const rules = this.rules;
        // Aliases mean their targets here as everywhere.
        const tag = rules.canonical(name);
        const implies = rules.canonical(other);
        if (tag === implies) throw reject('other', 'a tag cannot imply itself (a cycle)');
        if (rules.closure(implies).includes(tag))
          throw reject('other', `"${implies}" already implies "${tag}": this would make a cycle`);
        // Tags nobody has used yet are created (docs/decisions.md §19).
        posts.ensureTags([tag, implies]);
        if (!rules.putImplication(tag, implies, by.id)) return { tag, implies, jobId: null };
        const jobId = jobs.create({
          tag,
          implies,
          initiatorId: by.id,
          initiatorName: by.name,
          lastSeq: posts.lastSeq(),
        });
        return { tag, implies, jobId };
      })
      .immediate();
    if (result.jobId !== null) this.deps.implications.kick();
    return {
      tag: result.tag,
      implies: result.implies,
      job: result.jobId === null ? null : (jobs.get(result.jobId) ?? null),
    };
  }

  /**
   * Sets the category of the tag `name` means (an alias means its target), creating the tag when
   * nobody has used it yet (docs/decisions.md §19).
   */
  setCategory(name: string, category: TagCategory): TagCount {
    const { db, posts, tags } = this.deps;
    return db
      .transaction(() => {
        const tag = this.rules.canonical(name);
        posts.ensureTags([tag]);
        return tags.setCategory(tag, category);
      })
      .immediate();
  }

  /** Posts keep what they carry (docs/decisions.md §15: removing one removes nothing). */
  deleteImplication(name: string, other: string): void {
    const rules = this.rules;
    if (!rules.deleteImplication(rules.canonical(name), rules.canonical(other)))
      throw new AppError('not_found', 'implication not found');
  }

  /** What GET /api/tag/[name] adds to the tag's count. */
  describe(name: string): { aliases: string[]; implies: string[]; impliedBy: string[]; jobs: TagJob[] } {
    return { aliases: this.rules.aliasesOf(name), ...this.rules.direct(name), jobs: this.deps.jobs.list(10, name) };
  }

  jobs(limit = 100): TagJob[] {
    return this.deps.jobs.list(limit);
  }
}
