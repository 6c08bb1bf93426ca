/**
 * One file into one post (docs/decisions.md §22). An origin post goes through the upload's own entry
 * point (PostService.create: the same checks of the bytes, the same near-duplicate rule, whatever media
 * it accepts), with its origin, its new tags' categories and its comments written in that upload's unit
 * of work: the post and where it came from commit together, so an import killed anywhere and run again
 * finds every post it made and makes none twice. A near-duplicate of a post here enriches that post
 * instead. A bare file (no metadata) is an ownerless post, as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AppError } from '../errors.ts';
import type { AuthUser } from '../http/context.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { ImportDeps, ImportOptions } from './deps.ts';
import { withinTagLimit } from './fit.ts';
import type { ImportRecord } from './sources/index.ts';
import { refusalOf } from './summary.ts';

type Origin = Parameters<PostRepository['origins']['add']>[1];

/** A post made or enriched, with the comments it brought and the tags it could not hold; else why not. */
export type PostOutcome = { kind: 'imported' | 'merged'; comments: number; tagsDropped: string[] } | string;

/** The origin post `r` from its `file`, unless an upload refuses it (then the reason). */
export async function importPost(
  deps: ImportDeps,
  r: ImportRecord,
  file: string,
  opts: Omit<ImportOptions, 'progress'>,
): Promise<PostOutcome> {
  const copy = path.join(
    deps.tmpDir,
    `import-${process.pid}-${r.site.replace(/[^\w.-]/g, '_')}-${r.id.replace(/[^\w.-]/g, '_')}`,
  );
  const owner = opts.mapUsers && r.uploader ? deps.users.getByName(r.uploader) : undefined;
  const uploader: AuthUser | null = owner ? { id: owner.id, name: owner.name, permission: owner.permission } : null;
  const parent = r.parent === null ? undefined : deps.posts.origins.seqsOf(r.site, [r.parent]).get(r.parent);
  const origin: Origin = {
    site: r.site,
    id: r.id,
    url: r.url,
    uploader: r.uploader,
    score: r.score,
    favCount: r.favCount,
  };
  const now = new Date().toISOString();
  const { added: tags, dropped } = withinTagLimit([], r.tags);
  let comments = 0;
  try {
    fs.copyFileSync(file, copy);
    await deps.postService.create({
      file: { path: copy, size: fs.statSync(copy).size, mimetype: null },
      metadata: {
        tags: tags.map((t) => t.name),
        rating: r.rating,
        source: r.source,
        ...(parent ? { parentId: String(parent.seq) } : {}),
      },
      force: opts.force,
      uploader,
      imported: {
        createdAt: r.createdAt ?? now,
        beforeInsert: () => deps.posts.ensureTagsWithCategory(tags),
        afterInsert: (seq) => {
          // A second import of the same origin, racing this one, finds the row and makes nothing.
          if (!deps.posts.origins.add(seq, origin, now))
            throw new AppError('conflict', `${r.site} post ${r.id} was imported meanwhile`);
          for (const c of r.comments) {
            deps.comments.insertImported(seq, {
              key: `${r.site}:${c.id}`,
              author: c.author,
              body: c.body,
              createdAt: c.createdAt,
            });
            comments++;
          }
        },
      },
    });
    return { kind: 'imported', comments, tagsDropped: dropped };
  } catch (err) {
    if (err instanceof AppError && err.code === 'duplicate_image') {
      const into = (err.details as { id: string }[])[0].id;
      const merged = await enrich(deps, into, r, origin, now);
      return merged ? { kind: 'merged', comments: 0, tagsDropped: merged.dropped } : 'imported meanwhile';
    }
    if (err instanceof AppError && err.code === 'conflict') return err.message;
    const reason = refusalOf(err);
    if (reason !== undefined) return reason;
    throw err;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

/**
 * A near-duplicate of a post here (docs/decisions.md §22): that post gains the tags it lacked, as far as
 * it can hold them, and the origin, in one version by nobody. Undefined when the origin was recorded
 * meanwhile.
 */
async function enrich(
  deps: ImportDeps,
  into: string,
  r: ImportRecord,
  origin: Origin,
  at: string,
): Promise<{ dropped: string[] } | undefined> {
  return deps.unitOfWork.write((tx) => {
    const post = deps.posts.getById(into);
    if (!post) throw new AppError('not_found', 'the near-duplicate was deleted meanwhile');
    if (!deps.posts.origins.add(post.seq, { ...origin, enriched: true }, at)) return undefined;
    const has = post.tags.map((t) => t.name);
    const { added, dropped } = withinTagLimit(has, r.tags);
    deps.posts.ensureTagsWithCategory(added);
    deps.postService.editWithin(tx, post.id, { tags: [...has, ...added.map((t) => t.name)] }, null);
    return { dropped };
  });
}

/** An image file without metadata, as an ownerless post; a near-duplicate is skipped, as before. */
export async function importBare(
  deps: ImportDeps,
  file: string,
  n: number,
  force: boolean,
): Promise<'imported' | 'duplicate' | { refused: string }> {
  const copy = path.join(deps.tmpDir, `import-${process.pid}-bare-${n}`);
  try {
    fs.copyFileSync(file, copy);
    await deps.postService.create({
      file: { path: copy, size: fs.statSync(copy).size, mimetype: null },
      metadata: {},
      force,
      uploader: null,
    });
    return 'imported';
  } catch (err) {
    if (err instanceof AppError && err.code === 'duplicate_image') return 'duplicate';
    const reason = refusalOf(err);
    if (reason !== undefined) return { refused: reason };
    throw err;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}
