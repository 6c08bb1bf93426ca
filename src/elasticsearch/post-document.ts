import { createHash } from 'node:crypto';
import { hashSegments } from '../hashing/hamming.ts';
import { MIN_QUALITY } from '../robust/descriptor.ts';
import { decodeDescriptor } from '../robust/format.ts';
import { storedTerms } from '../robust/index-terms.ts';
import { SEGMENT_BITS } from '../robust/rule.ts';
import { imageName } from '../kernel/media-names.ts';
import type { PostRecord } from '../kernel/post-record.ts';

/** The posts index document; the fields match es-mappings/posts.json. */
export interface PostDocument {
  id: string;
  id_lc: string;
  seq: number;
  text: string;
  text_lc: string;
  text_grams: string[];
  tags: string[];
  tag_count: number;
  /** docs/decisions.md §20: the `width:` and `height:` metatags */
  width: number;
  height: number;
  rating: string;
  uploader_id: number | null;
  uploader_name: string | null;
  uploader_name_lc: string | null;
  created_at: string;
  updated_at: string;
  image: string;
  hash: string;
  hash_s0: string;
  hash_s1: string;
  hash_s2: string;
  hash_s3: string;
  /**
   * docs/decisions.md §14: the count (orderBy favorites) and who (favoritedBy), brought here by 'reindex' outbox rows
   */
  favorites: number;
  favorited_by: number[];
  /**
   * docs/decisions.md §18: the counts (orderBy score and comments, scoreGte/scoreLte) and who commented
   * (commentedBy), brought here by 'reindex' outbox rows as favorites are
   */
  score: number;
  upvotes: number;
  downvotes: number;
  comments: number;
  commented_by: number[];
  /**
   * docs/decisions.md §16: the robust descriptor's 16-bit segment terms (src/robust/index-terms.ts):
   * its full hash's, and those of the full hash and every window. Empty while it is not computed,
   * and for a picture too flat to match (quality below MIN_QUALITY).
   */
  robust_full: string[];
  robust_any: string[];
  /** its cells' terms (cells.ts): those of quality ≥ CELL_QUALITY */
  robust_cell: string[];
  /**
   * The three fields above are indexed but left out of `_source` (SOURCE_EXCLUDES; docs/decisions.md §16): they
   * were most of a document's bytes on disk. This digest of the descriptor they come from stays in `_source`, so
   * `imgpost verify` still sees a document whose terms are not the stored descriptor's. null: no terms.
   */
  robust_digest: string | null;
  /**
   * docs/decisions.md §19: the source lower-cased (sourceContains), the parent's number (childOf), the
   * pools (the `pool` condition) and the post's position in each (nested: orderBy pool sorts on the
   * position of the one pool asked for)
   */
  source_lc: string;
  parent: number | null;
  pool_ids: number[];
  pools: { id: number; position: number }[];
  /** docs/decisions.md §22: the sites it was imported from (originSite, origin:SITE), lower-cased */
  origin_sites: string[];
  /** docs/decisions.md §21: what the file is (mediaKind, Danbooru's filetype:, duration:, sound) */
  media_kind: string;
  file_ext: string;
  duration: number | null;
  has_audio: boolean;
  /**
   * docs/decisions.md §23: the note count (hasNotes, Danbooru's is:noted) and the newest note's time
   * (order:note), brought here by 'reindex' outbox rows as comments are
   */
  notes: number;
  last_noted_at: string | null;
}

/**
 * The trigrams of a lowered text, in order and with repeats: the `text_grams` field indexes each
 * value as one term at consecutive positions (keyword analyzer, no position gap between values), so
 * the trigram at position i is characters i..i+2 and a needle is a substring exactly where its own
 * trigrams stand next to each other (see textContains). The bundled Elasticsearch has no n-gram
 * tokenizer, hence the split in JavaScript. Characters are code points, as in the needle.
 */
export function trigrams(lowered: string): string[] {
  const chars = Array.from(lowered);
  const grams: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) grams.push(chars[i] + chars[i + 1] + chars[i + 2]);
  return grams;
}

/** The fields of the document that are indexed but not kept in `_source` (es-mappings/posts.json). */
export const SOURCE_EXCLUDES: readonly (keyof PostDocument)[] = ['robust_full', 'robust_any', 'robust_cell'];

/** What an index of the current mapping keeps of a document in `_source`: all but SOURCE_EXCLUDES. */
export function keptSource(doc: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  for (const field of SOURCE_EXCLUDES) delete out[field];
  return out;
}

/** The index terms of a stored descriptor (posts.robust) and its digest; none when it is absent or cannot match. */
export function robustTerms(robust: Uint8Array | undefined): {
  robust_full: string[];
  robust_any: string[];
  robust_cell: string[];
  robust_digest: string | null;
} {
  const d = decodeDescriptor(robust);
  if (!robust || !d || d.quality < MIN_QUALITY || d.hashes.length === 0)
    return { robust_full: [], robust_any: [], robust_cell: [], robust_digest: null };
  return {
    ...storedTerms(d.hashes, SEGMENT_BITS, d.cells),
    robust_digest: createHash('sha1').update(robust).digest('base64url').slice(0, 16),
  };
}

/**
 * `robust`: the post's stored descriptor (posts.robust), read beside the record; absent when none (the relay, reindex
 * and verify always pass what SQLite holds).
 */
export function toPostDocument(p: PostRecord, robust?: Uint8Array): PostDocument {
  const lowered = p.text.toLowerCase();
  const [s0, s1, s2, s3] = hashSegments(p.hash);
  return {
    id: p.id,
    id_lc: p.id.toLowerCase(),
    seq: p.seq,
    text: p.text,
    text_lc: lowered,
    text_grams: trigrams(lowered),
    tags: p.tags.map((t) => t.name),
    tag_count: p.tags.length,
    width: p.width,
    height: p.height,
    rating: p.rating,
    uploader_id: p.uploaderId,
    uploader_name: p.uploaderName,
    uploader_name_lc: p.uploaderName?.toLowerCase() ?? null,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    image: imageName(p),
    hash: p.hash,
    hash_s0: s0,
    hash_s1: s1,
    hash_s2: s2,
    hash_s3: s3,
    favorites: p.favorites,
    favorited_by: p.favoritedBy,
    score: p.upvotes - p.downvotes,
    upvotes: p.upvotes,
    downvotes: p.downvotes,
    comments: p.comments,
    commented_by: p.commentedBy,
    ...robustTerms(robust),
    source_lc: p.source.toLowerCase(),
    parent: p.parentSeq,
    pool_ids: p.pools.map((x) => x.pool),
    pools: p.pools.map((x) => ({ id: x.pool, position: x.position })),
    // Outbox rows written before docs/decisions.md §22 carry no origins.
    origin_sites: [...new Set((p.origins ?? []).map((o) => o.site.toLowerCase()))],
    media_kind: p.media.kind,
    file_ext: p.ext,
    duration: p.media.duration,
    has_audio: p.media.hasAudio,
    notes: p.notes,
    last_noted_at: p.lastNotedAt,
  };
}
