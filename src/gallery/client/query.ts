/**
 * The search box's segment syntax (docs/decisions.md §12) turned into a POST /image/search body:
 *   words        -> one textMatch (full text, typo tolerant)
 *   "a phrase"   -> textContains (exact substring)
 *   +tag / -tag  -> tagInclude / tagExclude
 *   ~tag         -> tagAny (all ~tags of a query form one OR group, docs/decisions.md §15)
 *   rating:none|moderate|violent, by:name, sort:new|old|relevance|score|comments (docs/decisions.md §18)
 * Segments combine with AND. Pure: no DOM, so it is tested on its own.
 */
export interface Condition {
  type: 'tagInclude' | 'tagExclude' | 'tagAny' | 'ratingEq' | 'textContains' | 'uploadedBy' | 'textMatch';
  value: string;
}

export interface ParsedQuery {
  conditions: Condition[];
  orderBy: 'id' | 'uploadDate' | 'relevance' | 'score' | 'comments';
  order: 'asc' | 'desc';
  /** segments the syntax does not know (shown to the person, not sent) */
  problems: string[];
}

const SORTS: Record<string, Pick<ParsedQuery, 'orderBy' | 'order'>> = {
  new: { orderBy: 'uploadDate', order: 'desc' },
  old: { orderBy: 'uploadDate', order: 'asc' },
  relevance: { orderBy: 'relevance', order: 'desc' },
  score: { orderBy: 'score', order: 'desc' },
  comments: { orderBy: 'comments', order: 'desc' },
};

export function parseQuery(q: string): ParsedQuery {
  const conditions: Condition[] = [];
  const words: string[] = [];
  const problems: string[] = [];
  let sort: Pick<ParsedQuery, 'orderBy' | 'order'> | undefined;
  for (const m of q.matchAll(/"([^"]*)"?|(\S+)/g)) {
    if (m[1] !== undefined) {
      if (m[1].trim()) conditions.push({ type: 'textContains', value: m[1].trim() });
      continue;
    }
    const seg = m[2];
    const colon = seg.indexOf(':');
    const key = colon > 0 ? seg.slice(0, colon).toLowerCase() : '';
    const value = colon > 0 ? seg.slice(colon + 1) : '';
    if ((seg[0] === '+' || seg[0] === '-') && seg.length > 1) {
      conditions.push({ type: seg[0] === '+' ? 'tagInclude' : 'tagExclude', value: seg.slice(1) });
    } else if (seg[0] === '~' && seg.length > 1) {
      conditions.push({ type: 'tagAny', value: seg.slice(1) });
    } else if (key === 'rating' && value) {
      conditions.push({ type: 'ratingEq', value: value.toLowerCase() });
    } else if (key === 'by' && value) {
      conditions.push({ type: 'uploadedBy', value });
    } else if (key === 'sort') {
      if (SORTS[value.toLowerCase()]) sort = SORTS[value.toLowerCase()];
      else problems.push(`${seg} (sort is new, old, relevance, score or comments)`);
    } else if (seg !== '+' && seg !== '-' && seg !== '~') {
      words.push(seg);
    }
  }
  if (words.length > 0) conditions.push({ type: 'textMatch', value: words.join(' ') });
  // Words rank by relevance unless the person chose an order.
  sort ??= words.length > 0 ? SORTS.relevance : SORTS.new;
  return { conditions, ...sort, problems };
}

/** `q` with one more segment (facet links), unless it is there already. */
export function withSegment(q: string, segment: string): string {
  const parts = q.trim().split(/\s+/).filter(Boolean);
  return parts.includes(segment) ? parts.join(' ') : [...parts, segment].join(' ');
}

/** A tag name in the Danbooru spelling: a backslash before what would read as syntax (docs/decisions.md §20). */
const booruTag = (name: string): string => name.replace(/[\\:*]/g, (c) => `\\${c}`).replace(/^[-~]/, (c) => `\\${c}`);

/**
 * The search in the Danbooru spelling (docs/decisions.md §20), for its Atom feed (`/posts.atom?tags=`):
 * tags and ratings as they are, `by:` as `user:`, a phrase as `text:"..."`, and each word as
 * `text:word` (a substring there, where the box matches words with typos: the feed may differ).
 */
export function booruTags(parsed: ParsedQuery): string {
  const terms = parsed.conditions.flatMap((c): string[] => {
    switch (c.type) {
      case 'tagInclude':
        return [booruTag(c.value)];
      case 'tagExclude':
        return [`-${booruTag(c.value)}`];
      case 'tagAny':
        return [`~${booruTag(c.value)}`];
      case 'ratingEq':
        return [`rating:${c.value}`];
      case 'uploadedBy':
        return [`user:${c.value}`];
      case 'textContains':
        return [`text:"${c.value.replace(/"/g, ' ')}"`];
      case 'textMatch':
        return c.value.split(/\s+/).map((w) => `text:${w}`);
    }
  });
  return terms.join(' ');
}
