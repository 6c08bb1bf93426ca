/**
 * The search box's text as a link adds to it. The box is parsed on the server, as the `/image/search`
 * condition `{ type: "query", spelling: "gallery" }` (docs/decisions.md §12, §20); the page only adds
 * segments for its facet links.
 */

/** `q` with one more segment (facet links), unless it is there already. */
export function withSegment(q: string, segment: string): string {
  const parts = q.trim().split(/\s+/).filter(Boolean);
  return parts.includes(segment) ? parts.join(' ') : [...parts, segment].join(' ');
}
