/**
 * THE diff of a post change: which of text, rating and tags differ. Versions (their `changes`),
 * webhook event data (`Changes`) and the update path (whether anything changed at all) all ask
 * here, so they cannot disagree on what counts as a change.
 */
import type { PostRecord, Rating } from './post-record.ts';

/** What a change can alter; `tags` in any order, repeats allowed (compared as a set). */
export interface Metadata {
  text: string;
  rating: Rating;
  tags: readonly string[];
}

export interface Change<T> {
  old: T;
  new: T;
}

/** Only the fields that differ. Key order (text, tags, rating) is the order clients see in JSON. */
export interface MetadataDiff {
  text?: Change<string>;
  tags?: Change<string[]>;
  rating?: Change<Rating>;
}

/** Tags are a set: compared as one, listed sorted (as versions and webhook Changes show them). */
export const sortedTags = (names: Iterable<string>): string[] => [...new Set(names)].sort();

export const metadataOf = (
  post: Pick<PostRecord, 'text' | 'rating'> & { tags: readonly { name: string }[] },
): Metadata => ({
  text: post.text,
  rating: post.rating,
  tags: post.tags.map((t) => t.name),
});

/** The fields that differ, each { old, new }; empty when nothing did. */
export function diffMetadata(before: Metadata, after: Metadata): MetadataDiff {
  const diff: MetadataDiff = {};
  if (before.text !== after.text) diff.text = { old: before.text, new: after.text };
  const oldTags = sortedTags(before.tags);
  const newTags = sortedTags(after.tags);
  if (oldTags.length !== newTags.length || oldTags.some((t, i) => t !== newTags[i]))
    diff.tags = { old: oldTags, new: newTags };
  if (before.rating !== after.rating) diff.rating = { old: before.rating, new: after.rating };
  return diff;
}

export const isEmptyDiff = (diff: MetadataDiff): boolean => Object.keys(diff).length === 0;

/**
 * What a post's history keeps (docs/decisions.md §19): the metadata, the source and the parent (by
 * UUID). Webhook `Changes` stay the metadata's (diffMetadata): a source-only edit is a version with
 * an update event whose Changes are empty.
 */
export interface VersionedFields extends Metadata {
  source: string;
  parentId: string | null;
}

export interface VersionDiff extends MetadataDiff {
  source?: Change<string>;
  parentId?: Change<string | null>;
}

export const versionedFieldsOf = (
  post: Pick<PostRecord, 'text' | 'rating' | 'source' | 'parentId'> & { tags: readonly { name: string }[] },
): VersionedFields => ({ ...metadataOf(post), source: post.source, parentId: post.parentId });

/** The history's diff: the metadata's, then source and parent (key order as clients see it). */
export function diffVersions(before: VersionedFields, after: VersionedFields): VersionDiff {
  const diff: VersionDiff = diffMetadata(before, after);
  if (before.source !== after.source) diff.source = { old: before.source, new: after.source };
  if (before.parentId !== after.parentId) diff.parentId = { old: before.parentId, new: after.parentId };
  return diff;
}
