// Command-line values of the benchmarks: a bad value names the benchmark and the flag, and
// exits 2 (usage) before anything runs.

/** `text` as a positive integer, or a usage line on stderr and exit 2. */
export function positiveIntegerArg(bench: string, name: string, text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    console.error(`${bench}: --${name} must be a positive integer`);
    process.exit(2);
  }
  return n;
}
