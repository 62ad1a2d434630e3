// Deterministic inputs for the benchmarks: a seeded generator, so every run of a benchmark
// measures the same texts, and the plain word list several benchmarks build prose from.

/** A small, fast, seeded generator (mulberry32) of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Ordinary words with no instruction-like meaning, for benign prose. */
export const PLAIN_WORDS: readonly string[] = (
  "river garden window morning quiet paper travel kitchen yellow market autumn letter bridge " +
  "coffee pencil harbor meadow lantern orchard velvet cabinet granite whistle canvas pebble " +
  "summer ticket blanket forest silver button candle violin maple island thunder"
).split(" ");
