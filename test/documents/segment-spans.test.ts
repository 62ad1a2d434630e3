import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { segmentCount, segmentSpans } from "../../src/documents/segment-spans.js";

const pairs = (spans: { start: number; end: number }[]) => spans.map((s) => [s.start, s.end]);

// A valid (length, C, O) triple, kept small enough to enumerate.
const geometry = fc
  .integer({ min: 1, max: 60 })
  .chain((chars) => fc.tuple(fc.integer({ min: 0, max: 400 }), fc.constant(chars), fc.integer({ min: 0, max: chars - 1 })));

describe("segmentSpans", () => {
  it("matches the worked examples", () => {
    expect(pairs(segmentSpans(11, 10, 3))).toEqual([
      [0, 10],
      [7, 11],
    ]);
    expect(pairs(segmentSpans(12, 10, 9))).toEqual([
      [0, 10],
      [1, 11],
      [2, 12],
    ]);
    expect(pairs(segmentSpans(9000, 3500, 500))).toEqual([
      [0, 3500],
      [3000, 6500],
      [6000, 9000],
    ]);
    expect(segmentSpans(24500, 3500, 500)).toHaveLength(8);
    expect(segmentSpans(24501, 3500, 500)).toHaveLength(9);
    expect(segmentSpans(0, 3500, 500)).toEqual([]);
    expect(pairs(segmentSpans(3500, 3500, 500))).toEqual([[0, 3500]]);
  });

  it("refuses a geometry unless C ≥ 1 and 0 ≤ O < C", () => {
    expect(() => segmentSpans(10, 0, 0)).toThrow(UsageError);
    expect(() => segmentSpans(10, 5, 5)).toThrow(UsageError);
    expect(() => segmentSpans(10, 5, -1)).toThrow(UsageError);
    expect(() => segmentSpans(10, 2.5, 0)).toThrow(UsageError);
    expect(() => segmentSpans(-1, 5, 0)).toThrow(UsageError);
  });

  it("covers every code point, starting at 0 and ending at the length", () => {
    fc.assert(
      fc.property(geometry, ([length, chars, overlap]) => {
        const spans = segmentSpans(length, chars, overlap);
        const seen = new Array<boolean>(length).fill(false);
        for (const s of spans) for (let i = s.start; i < s.end; i++) seen[i] = true;
        expect(seen.every(Boolean)).toBe(true);
        if (length > 0) {
          expect(spans[0]?.start).toBe(0);
          expect(spans.at(-1)?.end).toBe(length);
        }
      }),
    );
  });

  it("consecutive segments overlap by exactly O, except the last which may overlap more", () => {
    fc.assert(
      fc.property(geometry, ([length, chars, overlap]) => {
        const spans = segmentSpans(length, chars, overlap);
        spans.forEach((s, i) => {
          expect(s.end - s.start).toBeLessThanOrEqual(chars);
          expect(s.end).toBeGreaterThan(s.start);
          const next = spans[i + 1];
          if (next === undefined) return;
          const shared = s.end - next.start;
          if (i + 1 < spans.length - 1) expect(shared).toBe(overlap);
          else expect(shared).toBeGreaterThanOrEqual(Math.min(overlap, next.end - next.start));
          expect(s.end - s.start).toBe(chars); // only the last can be short
        });
      }),
    );
  });

  it("segmentCount agrees with the spans without building them", () => {
    fc.assert(
      fc.property(geometry, ([length, chars, overlap]) => {
        expect(segmentCount(length, chars, overlap)).toBe(segmentSpans(length, chars, overlap).length);
      }),
    );
  });
});
