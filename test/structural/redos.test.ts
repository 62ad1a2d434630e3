// Adversarial 4000-code-point inputs against regex backtracking and unbounded decoding: each
// check must finish well within a second (asserted loosely: 1 s of this process's CPU time, which
// other processes on a busy machine cannot inflate; bench:structural prints the wall-clock figures).
import { describe, expect, test } from "vitest";
import { StructuralFilter } from "../../src/structural/filter.js";
import { REDOS_SHAPES } from "../../fixtures/structural/redos-shapes.js";
import { codePointLength } from "../../src/core/codepoints.js";
import { BUILTIN_RULES, ruleMatches } from "../../src/structural/rules.js";
import { withCpuMs } from "../support/cpu-time.js";

const filter = new StructuralFilter();

describe("ReDoS shapes", () => {
  test.each(REDOS_SHAPES.map((s) => [s.name, s.text] as const))("%s finishes in under 1 s", (_name, text) => {
    expect(codePointLength(text)).toBeLessThanOrEqual(4000);
    const { result: r, cpuMs } = withCpuMs(() => filter.check(text));
    expect(typeof r.blocked).toBe("boolean");
    expect(cpuMs).toBeLessThan(1000);
  });
});

// The filter skips a rule on a text without any word the rule can begin with (rule-triggers.ts),
// so many shapes never reach most expressions through check(). The expressions must hold on
// their own too: every rule, searched directly, over every shape.
describe("ReDoS shapes against every rule, without the trigger pre-check", () => {
  test.each(REDOS_SHAPES.map((s) => [s.name, s.text] as const))("%s: all rules together in under 1 s", (_name, text) => {
    const { cpuMs } = withCpuMs(() => {
      for (const rule of BUILTIN_RULES) expect(typeof ruleMatches(rule, text)).toBe("boolean");
    });
    expect(cpuMs).toBeLessThan(1000);
  });
});
