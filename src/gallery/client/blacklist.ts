/**
 * Blacklists (docs/decisions.md §18): lines of tags; a post carrying every tag of a line and none of
 * its `-tag`s is hidden from the gallery's grids, which say how many they hid and offer to show them.
 * An account keeps its blacklist on the server; a visitor keeps one in this browser (localStorage).
 * Tags compare without regard to case. Pure functions first, then storage.
 */
import { api, ok } from './api.ts';
import { currentUser } from './session.ts';

const LOCAL_KEY = 'imgpost.blacklist';
export const MAX_LINES = 100;
export const MAX_LINE = 200;

export interface Rule {
  all: string[];
  none: string[];
}

/** A line's tags: `-tag` means "and not this tag"; a line without any tag hides nothing. */
export function parseRule(line: string): Rule | undefined {
  const rule: Rule = { all: [], none: [] };
  for (const word of line.trim().split(/\s+/u)) {
    if (word.startsWith('-') && word.length > 1) rule.none.push(word.slice(1).toLowerCase());
    else if (word && word !== '-') rule.all.push(word.toLowerCase());
  }
  return rule.all.length || rule.none.length ? rule : undefined;
}

export function isBlacklisted(tags: readonly string[], rules: readonly Rule[]): boolean {
  const have = new Set(tags.map((t) => t.toLowerCase()));
  return rules.some((r) => r.all.every((t) => have.has(t)) && !r.none.some((t) => have.has(t)));
}

/** The lines as the server keeps them: trimmed, words separated by one space, blank lines dropped. */
export function normalise(lines: readonly string[]): string[] {
  return lines.map((l) => l.trim().split(/\s+/u).filter(Boolean).join(' ')).filter((l) => l !== '');
}

export async function readBlacklist(): Promise<string[]> {
  const self = await currentUser().catch(() => undefined);
  if (self) return (await ok(api.GET('/api/account/preferences'))).blacklist;
  try {
    const kept = JSON.parse(localStorage.getItem(LOCAL_KEY) ?? '[]') as unknown;
    if (Array.isArray(kept)) return normalise(kept.filter((l): l is string => typeof l === 'string'));
  } catch {
    // a damaged entry means none
  }
  return [];
}

export async function saveBlacklist(lines: string[]): Promise<string[]> {
  const self = await currentUser().catch(() => undefined);
  if (self) return (await ok(api.PUT('/api/account/preferences', { body: { blacklist: lines } }))).blacklist;
  const kept = normalise(lines);
  localStorage.setItem(LOCAL_KEY, JSON.stringify(kept));
  return kept;
}

export const rulesOf = (lines: readonly string[]): Rule[] => lines.flatMap((l) => parseRule(l) ?? []);
