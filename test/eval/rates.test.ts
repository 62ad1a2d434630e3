import { describe, expect, test } from "vitest";
import { percentile, rate, wilsonInterval } from "../../src/eval/rates.js";

describe("rates", () => {
  test("a rate carries its numerator, denominator, the denominator's name and a Wilson interval", () => {
    expect(rate(0, 20, "benign_total")).toEqual({
      numerator: 0,
      denominator: 20,
      of: "benign_total",
      percent: 0,
      wilson95: { low: 0, high: 16.1 },
    });
    expect(rate(20, 20, "benign_total").wilson95).toEqual({ low: 83.9, high: 100 });
  });

  test("a rate over an empty denominator is null, never 0%", () => {
    expect(rate(0, 0, "attack_scored")).toEqual({ numerator: 0, denominator: 0, of: "attack_scored", percent: null, wilson95: null });
  });

  test("the Wilson interval matches the closed form for 25 of 160", () => {
    const interval = wilsonInterval(25, 160);
    expect(interval?.low).toBeCloseTo(0.1082, 3);
    expect(interval?.high).toBeCloseTo(0.2203, 3);
    expect(() => wilsonInterval(3, 2)).toThrow(RangeError);
  });

  test("percentages round half to even, as the original harness does", () => {
    // 1/8 = 12.5% exactly; 0.0625 → 6.25 → 6.2 (ties go to the even digit).
    expect(rate(1, 16, "x").percent).toBe(6.2);
    expect(rate(3, 16, "x").percent).toBe(18.8);
  });

  test("percentiles use the nearest rank and are null for no values", () => {
    expect(percentile([], 0.5)).toBeNull();
    expect(percentile([5, 1, 3, 2, 4], 0.5)).toBe(3);
    expect(percentile([5, 1, 3, 2, 4], 0.95)).toBe(5);
    expect(percentile([10], 0.95)).toBe(10);
  });
});
