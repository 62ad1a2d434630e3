// The CLI narrows V8's heap growing factor at start-up (cli/heap-tuning.ts) unless node was
// started with one; the peak it keeps down is a benchmark figure (bench:scale,
// docs/performance.md), not a test.
import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, tuneHeapGrowth } from "../../cli/heap-tuning.js";

describe("the heap growing factor", () => {
  // V8's flags are never set in this worker: the tests after this one would run with its heap.
  it("is set when node was started without one", () => {
    const set: string[] = [];
    expect(HEAP_GROWING_PERCENT).toBe(100);
    expect(tuneHeapGrowth([], (flags) => set.push(flags))).toBe(true);
    expect(tuneHeapGrowth(["--enable-source-maps", "--max-old-space-size=512"], (flags) => set.push(flags))).toBe(true);
    expect(set).toEqual(["--heap-growing-percent=100", "--heap-growing-percent=100"]);
  });

  it("is left to the user who gave one, in either spelling", () => {
    const set: string[] = [];
    expect(tuneHeapGrowth(["--heap-growing-percent=20"], (flags) => set.push(flags))).toBe(false);
    expect(tuneHeapGrowth(["--max-old-space-size=512", "--heap_growing_percent=300"], (flags) => set.push(flags))).toBe(false);
    expect(set).toEqual([]);
  });
});
