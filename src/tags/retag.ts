import type { Initiator, PostChanges } from '../kernel/commit.ts';
import { diffMetadata, isEmptyDiff, metadataOf } from '../kernel/diff.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { PostRepository } from '../kernel/post-repository.ts';

export interface RetagDeps {
  posts: PostRepository;
  changes: PostChanges;
}

/**
 * Brings one post's tags in line with the rules now in force (an alias or implication just made),
 * as an edit by `initiator`: one version and one update event, through the kernel's commit step.
 * A post already in line is left alone (no version, no event). Runs inside the caller's transaction.
 */
export function retagPost(deps: RetagDeps, seq: number, initiator: Initiator): OutboxRow | null {
  const before = deps.posts.getBySeq(seq);
  if (!before) return null;
  const current = metadataOf(before);
  const resolved = deps.posts.resolveTags(current.tags);
  if (isEmptyDiff(diffMetadata(current, { ...current, tags: resolved }))) return null;
  deps.posts.updateFields(seq, { text: before.text, rating: before.rating, updatedAt: new Date().toISOString() });
  deps.posts.setTags(seq, resolved);
  return deps.changes.updated(before, deps.posts.getBySeq(seq)!, initiator);
}
