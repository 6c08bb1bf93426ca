/**
 * Parents and children (docs/decisions.md §19): the rules on a post's `parentId`. The parent must
 * exist and a post cannot be its own ancestor (a cycle of any length is 400); deleting a parent
 * clears its children's parent, each as an edit with a version, inside the delete's unit of work.
 */
import { invalid } from '../../errors.ts';
import type { PostRecord } from '../../kernel/post-record.ts';
import type { PostRepository } from '../../kernel/post-repository.ts';
import type { Initiator, WriteTransaction } from '../../kernel/unit-of-work.ts';
import { UUID_PATTERN } from '../../util/uuid.ts';

/** A chain longer than this cannot exist (each link was checked when made); the walk stops there anyway. */
const MAX_DEPTH = 100_000;

/** The post a `parentId` names (its UUID or number), or 400. */
function parentNamed(posts: PostRepository, ref: string): PostRecord {
  const post = UUID_PATTERN.test(ref)
    ? posts.getById(ref.toLowerCase())
    : /^[1-9]\d{0,15}$/.test(ref)
      ? posts.getBySeq(Number(ref))
      : undefined;
  if (!post) throw invalid(['parentId'], `parentId names no post: ${ref}`);
  return post;
}

/**
 * The parent's number for post `childSeq` (undefined for a post not written yet), or 400: unknown
 * post, the post itself, or one of its descendants.
 */
export function resolveParent(posts: PostRepository, childSeq: number | undefined, ref: string | null): number | null {
  if (ref === null) return null;
  const parent = parentNamed(posts, ref);
  if (childSeq === undefined) return parent.seq;
  if (parent.seq === childSeq) throw invalid(['parentId'], 'a post cannot be its own parent');
  if (posts.links.ancestry(parent.seq, MAX_DEPTH).includes(childSeq))
    throw invalid(['parentId'], `post ${parent.id} descends from this post: a post cannot be its own ancestor`);
  return parent.seq;
}

/**
 * Clears the parent of every child of `parent`, each an edit (a new version, an update event with
 * empty Changes) by `initiator`, in the caller's unit of work (the parent's delete).
 */
export function orphanChildren(
  tx: WriteTransaction,
  posts: PostRepository,
  parent: PostRecord,
  initiator: Initiator,
): number {
  const children = posts.getManyBySeq(posts.links.childSeqs(parent.seq));
  const now = new Date().toISOString();
  for (const before of children) {
    posts.updateFields(before.seq, { text: before.text, rating: before.rating, updatedAt: now });
    posts.links.setOrigin(before.seq, { source: before.source, parentSeq: null });
    tx.updated(before, posts.getBySeq(before.seq)!, initiator);
  }
  return children.length;
}
