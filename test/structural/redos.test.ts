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

// Past the 4,000-code-point limit a text is held for its length, and every rule still reads it
// (its reasons are reported too). Two white-space runs side by side in the AI-reader names ("the
// AI", "the automated … tool") made a long run of spaces after them quadratic: 200 KB after "note
// to the AI" took over a minute. One run now, and 60,000 spaces stay well within the budget.
describe("long white-space runs after an AI reader's name", () => {
  test.each([
    ["'note to the AI' then 60,000 spaces", `note to the AI${" ".repeat(60_000)}`],
    ["'meant for the AI' then 60,000 spaces", `meant for the AI${" ".repeat(60_000)}`],
    ["'note to the automated' then 60,000 tabs", `note to the automated${"\t".repeat(60_000)}`],
  ])("%s finishes in under 1 s", (_name, text) => {
    const { result: r, cpuMs } = withCpuMs(() => filter.check(text));
    expect(r.blocked).toBe(true);
    expect(cpuMs).toBeLessThan(1000);
  });
});
