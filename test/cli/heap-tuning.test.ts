// The CLI narrows V8's heap growing factor at start-up (cli/heap-tuning.ts) unless node was
// started with one; the peak it keeps down is a benchmark figure (bench:scale,
// docs/performance.md), not a test.
import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, tuneHeapGrowth } from "../../cli/heap-tuning.js";

describe("the heap growing factor", () => {
  it("is set when node was started without one", () => {
    expect(HEAP_GROWING_PERCENT).toBe(100);
    expect(tuneHeapGrowth([])).toBe(true);
    expect(tuneHeapGrowth(["--enable-source-maps", "--max-old-space-size=512"])).toBe(true);
  });

  it("is left to the user who gave one, in either spelling", () => {
    expect(tuneHeapGrowth(["--heap-growing-percent=20"])).toBe(false);
    expect(tuneHeapGrowth(["--max-old-space-size=512", "--heap_growing_percent=300"])).toBe(false);
  });
});
