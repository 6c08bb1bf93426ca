import type { Db } from '../db/sqlite.ts';
import { nowIso } from '../db/sqlite.ts';
import { AppError } from '../errors.ts';
import type { TagRepository } from '../kernel/tag-repository.ts';
import type { TagRules } from '../kernel/tag-rules.ts';
import { namesFor, type UserNames } from '../kernel/user-names.ts';
import type { WikiPageView, WikiVersionView } from './schemas.ts';
import type { WikiRepository, WikiRow } from './wiki-repository.ts';

export interface WikiDeps {
  db: Db;
  wiki: WikiRepository;
  /** aliases: an alias's page is its target's */
  rules: TagRules;
  tags: TagRepository;
  users: UserNames;
}

/** Who edits, and what their bits allow (the routes read them). */
export interface WikiActor {
  id: number;
  /** 0x4 */
  mayEdit: boolean;
  /** 0x1000: locks pages and edits locked ones */
  governs: boolean;
}

export interface WikiEditInput {
  body: string;
  otherNames?: string[];
  version?: number;
}

/**
 * Tag wiki pages (docs/decisions.md §23). A page is keyed by a tag name; an alias reads and writes its
 * target's page. A renamed or merged tag (an alias made over it) keeps its page: the alias and its
 * target read it while the target has none of its own, and edits go on in it. Edits are optimistic: a
 * `version` that is not the current one is 409, so two editors cannot overwrite each other.
 * Each check and its write are one transaction. No post changes, so no unit of work.
 */
export class WikiService {
  constructor(private readonly deps: WikiDeps) {}

  get(tag: string): WikiPageView {
    return this.view(this.page(tag));
  }

  put(actor: WikiActor, tag: string, input: WikiEditInput): WikiPageView {
    if (!actor.mayEdit) throw new AppError('forbidden', 'permission denied');
    const { wiki } = this.deps;
    const written = this.deps.db
      .transaction(() => {
        const page = this.find(tag);
        const at = nowIso();
        if (!page) {
          const title = this.deps.rules.canonical(tag);
          if (!this.deps.tags.get(title)) throw new AppError('not_found', 'no such tag');
          if (input.version !== undefined && input.version !== 0)
            throw new AppError('conflict', 'this page does not exist yet: send no version');
          wiki.insert(title, input.body, input.otherNames ?? [], actor.id, at);
          return title;
        }
        this.mayChange(actor, page, input.version);
        wiki.update(page, input.body, input.otherNames ?? page.otherNames, actor.id, at);
        return page.tag;
      })
      .immediate();
    return this.view(this.deps.wiki.get(written)!);
  }

  /**
   * A page an import brought (docs/decisions.md §22), by nobody: written only where the tag exists here
   * and has no page yet (this board's own page wins, and an import run again writes nothing). True when written.
   */
  importPage(tag: string, input: { body: string; otherNames: string[] }): boolean {
    return this.deps.db
      .transaction(() => {
        if (this.find(tag)) return false;
        const title = this.deps.rules.canonical(tag);
        if (!this.deps.tags.get(title)) return false;
        this.deps.wiki.insert(title, input.body.slice(0, 50_000), input.otherNames, null, nowIso());
        return true;
      })
      .immediate();
  }

  history(tag: string): WikiVersionView[] {
    const rows = this.deps.wiki.versions(this.page(tag).id);
    const names = namesFor(
      this.deps.users,
      rows.map((r) => r.editorId),
    );
    return rows.map((r) => ({
      version: r.version,
      body: r.body,
      otherNames: r.otherNames,
      createdAt: r.createdAt,
      editor: this.user(r.editorId, names),
    }));
  }

  /** A new version with an earlier one's text. */
  revert(actor: WikiActor, tag: string, version: number): WikiPageView {
    if (!actor.mayEdit) throw new AppError('forbidden', 'permission denied');
    const title = this.deps.db
      .transaction(() => {
        const page = this.page(tag);
        this.mayChange(actor, page, undefined);
        const old = this.deps.wiki.version(page.id, version);
        if (!old) throw new AppError('not_found', `this page has no version ${version}`);
        this.deps.wiki.update(page, old.body, old.otherNames, actor.id, nowIso());
        return page.tag;
      })
      .immediate();
    return this.view(this.deps.wiki.get(title)!);
  }

  lock(actor: WikiActor, tag: string, locked: boolean): WikiPageView {
    if (!actor.governs) throw new AppError('forbidden', 'locking a page needs 0x1000');
    const page = this.page(tag);
    this.deps.wiki.setLocked(page.id, locked);
    return this.view(this.deps.wiki.get(page.tag)!);
  }

  search(query: string | undefined, offset: number, limit: number): { count: number; data: WikiPageView[] } {
    const { count, data } = this.deps.wiki.search(query, offset, limit);
    return { count, data: this.views(data) };
  }

  /** Which of `tags` have a page, through aliases (the wiki text's missing-page mark). */
  existing(tags: readonly string[]): Set<string> {
    const canonical = tags.map((t) => this.deps.rules.canonical(t));
    const found = this.deps.wiki.existing([...tags, ...canonical]);
    return new Set(tags.filter((t, i) => found.has(t) || found.has(canonical[i])));
  }

  /**
   * The stored page a name means: its target's; while the target has none, the page kept under the name
   * itself or (from the target) under the first of its aliases that has one; undefined if none.
   */
  find(tag: string): WikiRow | undefined {
    const { wiki, rules } = this.deps;
    const title = rules.canonical(tag);
    const own = wiki.get(title) ?? (title === tag ? undefined : wiki.get(tag));
    if (own) return own;
    for (const alias of rules.aliasesOf(title)) {
      const kept = wiki.get(alias);
      if (kept) return kept;
    }
    return undefined;
  }

  rows(titles: readonly string[]): WikiRow[] {
    return this.deps.wiki.byTitles(titles);
  }

  private page(tag: string): WikiRow {
    const page = this.find(tag);
    if (!page) throw new AppError('not_found', 'no wiki page for this tag');
    return page;
  }

  private mayChange(actor: WikiActor, page: WikiRow, version: number | undefined): void {
    if (page.locked && !actor.governs) throw new AppError('forbidden', 'this page is locked: editing it needs 0x1000');
    if (version !== undefined && version !== page.version)
      throw new AppError('conflict', `stale version ${version}: the current version is ${page.version}`);
  }

  private user(id: number | null, names: Map<number, string>) {
    const name = id === null ? undefined : names.get(id);
    return id !== null && name !== undefined ? { id, name } : null;
  }

  private view(row: WikiRow): WikiPageView {
    return this.views([row])[0];
  }

  private views(rows: WikiRow[]): WikiPageView[] {
    const names = namesFor(
      this.deps.users,
      rows.map((r) => r.editorId),
    );
    return rows.map((r) => ({
      tag: r.tag,
      body: r.body,
      otherNames: r.otherNames,
      locked: r.locked,
      version: r.version,
      updatedAt: r.updatedAt,
      editor: this.user(r.editorId, names),
    }));
  }
}
