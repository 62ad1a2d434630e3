// Holding a source document whole: once any document of a source is held, its admitted siblings are
// held too. Screening chunks one by one lets a payload's neighbours through (the chunk that carries
// it is held, the chunk after it is admitted), so a caller that cannot screen before splitting
// groups the chunks by their source document's identity. A document with no identity is a group
// of its own: nothing ties it to another.

/**
 * The admitted documents to hold because another document of their source was held, each mapped
 * to the first held document (lowest index) of that source. `sources` maps a document's index to
 * its source identity (documents without one are absent); `held` lists the indices already held.
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
