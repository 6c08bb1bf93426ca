/**
 * Plain evaluation of `/image/search` facets (docs/decisions.md §11) over the matching SQLite records, for
 * the differential test. Shares no code with src/search.
 */
import type { PostRecord } from '../../src/kernel/post-record.ts';
import type { RefCondition } from './search-reference.ts';

export type RefFacet = 'tags' | 'rating' | 'uploader';

/** Code point order (= UTF-8 byte order), not JavaScript's UTF-16 order. */
const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

export function refFacets(
  matched: PostRecord[],
  conditions: RefCondition[],
  facets: RefFacet[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (facets.includes('tags')) {
    const included = new Set(conditions.filter((c) => c.type === 'tagInclude').map((c) => c.value.trim()));
    const counts = new Map<string, number>();
    for (const p of matched)
      for (const t of p.tags) if (!included.has(t.name)) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    out.tags = [...counts]
      .sort((a, b) => b[1] - a[1] || byCodePoint(a[0], b[0]))
      .slice(0, 20)
      .map(([name, count]) => ({ name, count }));
  }
  if (facets.includes('rating')) {
    const rating: Record<string, number> = { none: 0, moderate: 0, violent: 0 };
    for (const p of matched) rating[p.rating]++;
    out.rating = rating;
  }
  if (facets.includes('uploader')) {
    const counts = new Map<number, { id: number; name: string; count: number }>();
    for (const p of matched) {
      if (p.uploaderId === null) continue;
      const u = counts.get(p.uploaderId) ?? { id: p.uploaderId, name: p.uploaderName ?? '', count: 0 };
      u.count++;
      counts.set(p.uploaderId, u);
    }
    out.uploader = [...counts.values()].sort((a, b) => b.count - a.count || a.id - b.id).slice(0, 10);
  }
  return out;
}
