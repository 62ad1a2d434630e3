// Adversarial 4000-code-point inputs against regex backtracking and unbounded decoding: each
// check must finish well within a second (asserted loosely: 1 s).
import { describe, expect, test } from "vitest";
import { StructuralFilter } from "../../src/structural/index.js";
import { REDOS_SHAPES } from "../../fixtures/structural/redos-shapes.js";
import { codePointLength } from "../../src/core/codepoints.js";
import { BUILTIN_RULES, ruleMatches } from "../../src/structural/rules.js";

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

// The filter skips a rule on a text without any word the rule can begin with (rule-triggers.ts),
// so many shapes never reach most expressions through check(). The expressions must hold on
// their own too: every rule, searched directly, over every shape.
describe("ReDoS shapes against every rule, without the trigger pre-check", () => {
  test.each(REDOS_SHAPES.map((s) => [s.name, s.text] as const))("%s: all rules together in under 1 s", (_name, text) => {
    const start = performance.now();
    for (const rule of BUILTIN_RULES) expect(typeof ruleMatches(rule, text)).toBe("boolean");
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
