// The rule that holds a source document whole (src/rag/screen-documents.ts), on indices alone.
import { describe, expect, it } from "vitest";
import { siblingsToHold } from "../../src/rag/screen-documents.js";

describe("siblingsToHold", () => {
  it("maps each admitted document of a source with a held document to the source's first held one; other sources and documents without one are untouched", () => {
    // 0-3 are a.md, 4-5 b.md, 6 has no source; 3 and 1 are held (given out of order), 6 is held.
    const sources = new Map([
      [0, "a.md"],
      [1, "a.md"],
      [2, "a.md"],
      [3, "a.md"],
      [4, "b.md"],
      [5, "b.md"],
    ]);
    const toHold = siblingsToHold(sources, new Set([3, 1, 6]));
    expect([...toHold].sort((x, y) => x[0] - y[0])).toEqual([
      [0, 1],
      [2, 1],
    ]);
  });

  it("nothing held, nothing to hold", () => {
    expect(siblingsToHold(new Map([[0, "a.md"]]), new Set()).size).toBe(0);
  });
});
