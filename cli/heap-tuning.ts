// How much garbage V8 may let pile up before a full collection, set once at start-up.
//
// An ingest or screen run allocates fast (request bodies, views, replies: hundreds of MB a
// second at high throughput) but keeps little alive: about 35 MB at any point of a
// 100,000-record run. After each full collection V8 lets the old generation grow to up to four
// times what survived before the next one, so a steady 35 MB of live data peaked at 130-160 MB
// of heap and about 260 MB RSS, and how high a run peaked depended on how long it ran. A growing
// factor of 2 keeps the heap under about 80 MB for about 2% more time spent collecting (1.5 kept
// it lower still but cost a warm re-run with the cache about 8%); docs/performance.md has the
// figures. V8 flags cannot go in NODE_OPTIONS, so a user who wants another factor passes
// `--heap-growing-percent` to node itself, and that choice is left alone.
import { setFlagsFromString } from "node:v8";

/** V8's heap growing factor as a percentage over 1 (100 means 2). */
export const HEAP_GROWING_PERCENT = 100;

/** Sets V8's heap growing factor unless node was started with one; true when it set it. `setFlags` (tests) stands for V8's own, which would change the test worker's heap. */
export function tuneHeapGrowth(execArgv: readonly string[] = process.execArgv, setFlags: (flags: string) => void = setFlagsFromString): boolean {
  if (execArgv.some((arg) => /^--heap[-_]growing[-_]percent\b/.test(arg))) return false;
  setFlags(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
