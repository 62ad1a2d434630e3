// Holding a source document whole: screening chunks one by one lets a payload's neighbours through
// (the chunk that carries it is held, the next one admitted), so a caller that cannot screen before
// splitting groups the chunks by their source document's identity.

/**
 * The admitted documents to hold because another document of their source was held, each mapped to
 * the first held one of that source. `sources` maps an index to its source (none: absent, a group of its own).
 */
export function siblingsToHold(sources: ReadonlyMap<number, string>, held: ReadonlySet<number>): Map<number, number> {
  const firstHeld = new Map<string, number>();
  for (const [index, source] of sources) {
    const first = firstHeld.get(source);
    if (held.has(index) && (first === undefined || index < first)) firstHeld.set(source, index);
  }
  const toHold = new Map<number, number>();
  for (const [index, source] of sources) {
    const first = firstHeld.get(source);
    if (first !== undefined && !held.has(index)) toHold.set(index, first);
  }
  return toHold;
}
