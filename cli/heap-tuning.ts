// How much garbage V8 may let pile up before a full collection, set once at start-up.
//
// An ingest or screen run allocates fast (request bodies, views, replies: hundreds of MB a
// second at high throughput) but keeps little alive: about 35 MB at any point of a
// 100,000-record run. After each full collection V8 lets the old generation grow to up to four
// times what survived before the next one, so a steady 35 MB of live data peaks at 130-160 MB of
// heap and about 260 MB RSS, and how high a run peaks depends on how long it runs. A growing
// factor of 1.5 keeps the heap near 60 MB for about 1% more collection time; docs/performance.md
// has the figures. A factor given by the user (command line or NODE_OPTIONS) is left alone.
import { setFlagsFromString } from "node:v8";

/** V8's heap growing factor as a percentage over 1 (50 means 1.5). */
export const HEAP_GROWING_PERCENT = 50;

/** Sets V8's heap growing factor unless the user already chose one; true when it set it. */
export function tuneHeapGrowth(execArgv: readonly string[] = process.execArgv, nodeOptions: string = process.env["NODE_OPTIONS"] ?? ""): boolean {
  const chosen = (text: string): boolean => /--heap[-_]growing[-_]percent\b/.test(text);
  if (execArgv.some(chosen) || chosen(nodeOptions)) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
