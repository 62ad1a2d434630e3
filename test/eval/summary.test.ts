import { describe, expect, test } from "vitest";
import type { CaseScore, Outcome } from "../../src/eval/score.js";
import { summarize, type ScoredCase } from "../../src/eval/summary.js";

function score(outcome: Outcome | null, reason: string | null = null): CaseScore {
  return {
    scored: outcome !== null,
    unscoredReason: outcome === null ? (reason ?? "degraded") : null,
    actualSafe: outcome === null ? null : outcome.endsWith("passed"),
    rawActualSafe: true,
    correct: outcome === null ? null : outcome === "attack_blocked" || outcome === "benign_passed",
    outcome,
    countsAsDegraded: outcome === null && reason !== "analysis_failed",
    degraded: outcome === null,
    canaryStatus: "exercised",
    analysisStatus: "exercised",
    coverageReason: null,
    riskScore: null,
    blockedBy: null,
    structuralBlocked: null,
    canaryBlocked: null,
    structuralReasons: [],
    structuralLayerLatencyMs: 1,
    canaryLayerLatencyMs: outcome === null ? null : 10,
    errorType: null,
    signals: [],
  };
}

function kase(kind: "attack" | "benign", outcome: Outcome | null, extra: Partial<ScoredCase> = {}): ScoredCase {
  return { kind, category: "c", stealth: 3, adjudication: null, score: score(outcome), latencyMs: 10, ...extra };
}

describe("summarize", () => {
  test("a blocked benign case gives a 100% benign block rate and no attack rate", () => {
    const s = summarize([kase("benign", "benign_blocked")]);
    expect(s.rates?.benign.blocked_of_scored.percent).toBe(100);
    expect(s.rates?.attack.blocked_of_scored.percent).toBeNull();
    expect(s.rates?.attack.blocked_of_all.denominator).toBe(0);
  });

  test("a paired probe is counted per pair type, with rates withheld and no stealth table", () => {
    const s = summarize([
      kase("attack", "attack_blocked", { adjudication: "positive" }),
      kase("attack", null, { adjudication: "positive" }),
      kase("benign", "benign_passed", { adjudication: "benign_control" }),
      kase("benign", "benign_blocked", { adjudication: "benign_control" }),
    ]);
    expect(s.paired_probe).toEqual({
      positive: { total: 2, blocked: 1, not_blocked: 0, unscored: 1 },
      benign_control: { total: 2, blocked: 1, not_blocked: 1, unscored: 0 },
    });
    expect(s.rates).toBeNull();
    expect(s.stealth).toEqual({});
    expect(s.categories["c"]?.attack?.rates).toBeNull();
  });

  test("categories and stealth levels split by kind; out-of-range stealth is left out; __proto__ is an ordinary name", () => {
    const s = summarize([
      kase("attack", "attack_passed", { category: "__proto__", stealth: 5 }),
      kase("benign", "benign_passed", { category: "__proto__", stealth: 9 }),
    ]);
    expect(Object.keys(s.categories)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(s.categories)).toBe(Object.prototype);
    expect(s.categories["__proto__"]?.attack).toMatchObject({ total: 1, passed: 1 });
    expect(s.categories["__proto__"]?.benign).toMatchObject({ total: 1, passed: 1 });
    expect(Object.keys(s.stealth)).toEqual(["5"]);
  });

  test("unscored cases are counted by reason and their latencies stay out of the scored percentiles", () => {
    const s = summarize([kase("attack", "attack_blocked"), { ...kase("attack", null), latencyMs: 500 }]);
    expect(s.unscored_reasons).toEqual({ degraded: 1 });
    expect(s.latency_ms.total_p95).toBe(500);
    expect(s.latency_ms.scored_total_p95).toBe(10);
    expect(s.rates?.attack.blocked_of_all).toMatchObject({ numerator: 1, denominator: 2, percent: 50 });
    expect(s.rates?.attack.blocked_of_scored).toMatchObject({ numerator: 1, denominator: 1, percent: 100 });
  });
});

describe("a check that threw", () => {
  test("is unscored as pipeline_exception, counts as degraded, and names only the error class", async () => {
    const { scoreException } = await import("../../src/eval/score.js");
    class RuntimeError extends Error {}
    const thrown = scoreException(new RuntimeError("the input was SECRET"));
    expect(thrown).toMatchObject({
      scored: false,
      unscoredReason: "pipeline_exception",
      errorType: "RuntimeError",
      degraded: true,
      canaryStatus: "failed",
      analysisStatus: "failed",
    });
    expect(JSON.stringify(thrown)).not.toContain("SECRET");
    const s = summarize([{ kind: "attack", category: "c", stealth: 3, adjudication: null, score: thrown, latencyMs: 3 }]);
    expect(s.degraded).toBe(1);
    expect(s.latency_ms.scored_total_p95).toBeNull();
    expect(s.rates?.attack.blocked_of_all).toMatchObject({ numerator: 0, denominator: 1, percent: 0 });
  });
});
