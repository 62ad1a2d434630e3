// Adversarial 4000-code-point inputs against regex backtracking and unbounded decoding: each
// check must finish well within a second (asserted loosely: 1 s).
import { describe, expect, test } from "vitest";
import { StructuralFilter } from "../../src/structural/index.js";
import { REDOS_SHAPES } from "../../fixtures/structural/redos-shapes.js";
import { codePointLength } from "../../src/core/codepoints.js";

const filter = new StructuralFilter();

describe("ReDoS shapes", () => {
  test.each(REDOS_SHAPES.map((s) => [s.name, s.text] as const))("%s finishes in under 1 s", (_name, text) => {
    expect(codePointLength(text)).toBeLessThanOrEqual(4000);
    const start = performance.now();
    const r = filter.check(text);
    const ms = performance.now() - start;
    expect(typeof r.blocked).toBe("boolean");
    expect(ms).toBeLessThan(1000);
  });
});
