// Code-point order for strings (what Python's `sorted` uses, and UTF-8 byte order). JS's
// default sort compares UTF-16 units, which puts astral characters (U+10000 and up, stored as
// surrogates D800–DFFF) before U+E000–U+FFFF; metadata material, `metadata_keys` and
// detection signals are ordered by code point so they do not depend on that quirk.

/** Negative, zero or positive as `a` sorts before, equal to, or after `b` by code point. */
export function compareCodePoints(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.codePointAt(i) as number;
    const cb = b.codePointAt(j) as number;
    if (ca !== cb) return ca - cb;
    i += ca > 0xffff ? 2 : 1;
    j += cb > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

/** A sorted copy of `values` in code-point order. */
export function sortByCodePoint(values: Iterable<string>): string[] {
  return [...values].sort(compareCodePoints);
}
