import { RATINGS, type Rating } from '../../kernel/post-record.ts';
import { TOP_TAGS, TOP_UPLOADERS, type Facets } from './result-shapes.ts';
import type { Facet } from './schemas.ts';

/** `/image/search` facets (docs/decisions.md §11): counts over the whole result, from aggregations. */

export { TOP_TAGS, TOP_UPLOADERS, type Facets } from './result-shapes.ts';

/**
 * The aggregations for the requested facets. Exact because the posts index has one primary shard
 * (es-mappings/posts.json; test/search/facets.test.ts checks it): a terms aggregation on one shard
 * counts every term and picks its top buckets by the full order, so no count is estimated and a
 * tie is broken by the key (byte order of UTF-8, i.e. code point order; ids numerically).
 * `shard_size` equals `size` because one shard needs no headroom for a cross-shard merge.
 */
export function facetAggregations(
  facets: readonly Facet[],
  /** the tags every match carries (their canonical names) */
  required: readonly string[],
): Record<string, unknown> {
  const aggs: Record<string, unknown> = {};
  const order = [{ _count: 'desc' }, { _key: 'asc' }];
  if (facets.includes('tags')) {
    // Tags the caller asked for are in every hit: listing them would say nothing.
    const included = [...new Set(required)];
    aggs.tags = {
      terms: {
        field: 'tags',
        size: TOP_TAGS,
        shard_size: TOP_TAGS,
        order,
        ...(included.length ? { exclude: included } : {}),
      },
    };
  }
  if (facets.includes('rating'))
    aggs.rating = { terms: { field: 'rating', size: RATINGS.length, shard_size: RATINGS.length } };
  if (facets.includes('uploader')) {
    // Posts without an owner have no uploader_id, so a terms aggregation leaves them out. The name
    // comes from the same documents as the count (one snapshot), one name per id.
    aggs.uploader = {
      terms: { field: 'uploader_id', size: TOP_UPLOADERS, shard_size: TOP_UPLOADERS, order },
      aggs: { name: { terms: { field: 'uploader_name', size: 1 } } },
    };
  }
  return aggs;
}

interface Bucket {
  key: string | number;
  doc_count: number;
  name?: { buckets: Bucket[] };
}
type Aggregations = Record<string, { buckets: Bucket[] } | undefined>;

/** The response's `facets` from the aggregation results (only the requested keys). */
export function readFacets(facets: readonly Facet[], results: Record<string, unknown> | undefined): Facets {
  const aggregations = results as Aggregations | undefined;
  const buckets = (name: string) => aggregations?.[name]?.buckets ?? [];
  const out: Facets = {};
  if (facets.includes('tags')) out.tags = buckets('tags').map((b) => ({ name: String(b.key), count: b.doc_count }));
  if (facets.includes('rating')) {
    const rating = Object.fromEntries(RATINGS.map((r) => [r, 0])) as Record<Rating, number>;
    for (const b of buckets('rating'))
      if ((RATINGS as readonly string[]).includes(String(b.key))) rating[b.key as Rating] = b.doc_count;
    out.rating = rating;
  }
  if (facets.includes('uploader'))
    out.uploader = buckets('uploader').map((b) => ({
      id: Number(b.key),
      name: String(b.name?.buckets[0]?.key ?? ''),
      count: b.doc_count,
    }));
  return out;
}
