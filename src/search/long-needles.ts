import type { EsClient } from '../elasticsearch/client.ts';
import { gramFilters, isLongNeedle, type NeedleMatches } from './clauses.ts';
import { scanAll } from './engine.ts';

/**
 * Substring search for needles too long for a wildcard query: every post holding all of the
 * needle's (sampled) trigrams is a candidate, and the candidate's lower-cased text, read from the
 * index, decides exactly. Long needles have many trigrams, so candidates are few; the resulting ids
 * then stand in for the substring clause, keeping counts, sorting and paging in Elasticsearch.
 */
export async function resolveLongNeedles(es: EsClient, index: string, needles: string[]): Promise<NeedleMatches> {
  const out = new Map<string, string[]>();
  for (const needle of needles) {
    const lowered = needle.toLowerCase();
    if (!isLongNeedle(lowered) || out.has(lowered)) continue;
    const ids: string[] = [];
    const pages = scanAll<{ text_lc?: string }>(es, {
      index,
      query: { bool: { filter: gramFilters(lowered) } },
      source: ['text_lc'],
      page: 500,
    });
    for await (const hits of pages) for (const h of hits) if (h.source.text_lc?.includes(lowered)) ids.push(h.id);
    out.set(lowered, ids);
  }
  return out;
}
