/**
 * The key tag names are matched on case-insensitively: canonical composition (NFC), then full
 * case folding as JavaScript approximates it (upper then lower: "Straße" and "STRASSE" agree,
 * as do final and medial sigma). Stored in tags.folded; a prefix is folded the same way.
 */
export const foldTag = (name: string): string => name.normalize('NFC').toUpperCase().toLowerCase();

/**
 * The smallest string above every string that starts with `prefix` (code-point order, which is
 * SQLite's BINARY order on UTF-8): prefix ≤ s < upper exactly when s starts with prefix.
 * undefined for the empty prefix (everything matches) and for one made only of U+10FFFF.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const last = points.pop()!.codePointAt(0)!;
    if (last < 0x10ffff) {
      const next = last + 1 === 0xd800 ? 0xe000 : last + 1; // skip the surrogate block
      return points.join('') + String.fromCodePoint(next);
    }
  }
  return undefined;
}
