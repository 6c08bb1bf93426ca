import { diffMetadata, isEmptyDiff, metadataOf } from '../kernel/diff.ts';
import type { OutboxRow } from '../kernel/outbox.ts';
import type { PostRepository } from '../kernel/post-repository.ts';
import type { Initiator, WriteTransaction } from '../kernel/unit-of-work.ts';

/**
 * Brings one post's tags in line with the rules now in force (an alias or implication just made),
 * as an edit by `initiator`: one version and one update event, through the unit of work's commit
 * step `tx`. A post already in line is left alone (no version, no event).
 */
export function retagPost(
  tx: WriteTransaction,
  posts: PostRepository,
  seq: number,
  initiator: Initiator,
): OutboxRow | null {
  const before = posts.getBySeq(seq);
  if (!before) return null;
  const current = metadataOf(before);
  const resolved = posts.resolveTags(current.tags);
  if (isEmptyDiff(diffMetadata(current, { ...current, tags: resolved }))) return null;
  posts.updateFields(seq, { text: before.text, rating: before.rating, updatedAt: new Date().toISOString() });
  posts.setTags(seq, resolved);
  return tx.updated(before, posts.getBySeq(seq)!, initiator);
}
