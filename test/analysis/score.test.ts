// Scoring and rounding (src/analysis/score.ts).
import { describe, expect, test } from "vitest";
import { roundHalfEven2, scoreSignals } from "../../src/analysis/score.js";
import type { Signal } from "../../src/analysis/types.js";

const signal = (category: string, severity: number): Signal => ({
  category,
  severity,
  description: "d",
  evidence: "",
});

describe("roundHalfEven2", () => {
  test.each([
    [0.125, 0.12],
    [0.375, 0.38],
    [0.625, 0.62],
    [0.875, 0.88],
    [0.163, 0.16],
    [0.2155, 0.22],
    [0.543, 0.54],
    [0.545, 0.55], // 0.545 is stored just above the tie, so it rounds up (as Python's round)
    [1, 1],
    [0, 0],
  ])("%s → %s", (value, expected) => {
    expect(roundHalfEven2(value)).toBe(expected);
  });
});

describe("scoreSignals", () => {
  test("no signals: 0.0 and the fixed summary", () => {
    expect(scoreSignals([], 0.6)).toEqual({
      riskScore: 0,
      shouldBlock: false,
      hardBlocked: false,
      summary: "No behavioral anomalies detected.",
    });
  });

  test("worked examples: format 0.16, discontinuity 0.22, tool+format 0.54", () => {
    expect(scoreSignals([signal("format_anomaly", 0.3)], 0.6).riskScore).toBe(0.16);
    expect(scoreSignals([signal("semantic_discontinuity", 0.55)], 0.6).riskScore).toBe(0.22);
    const both = scoreSignals([signal("tool_hallucination", 0.7), signal("format_anomaly", 0.3)], 0.6);
    expect(both).toMatchObject({ riskScore: 0.54, shouldBlock: false });
  });

  test("blocking compares the unrounded risk", () => {
    // 0.7 × 0.7 × 0.7 + 0.2 = 0.543 → stored 0.54, but a threshold of 0.5429 blocks and 0.5431 does not.
    const signals = [signal("tool_hallucination", 0.7), signal("format_anomaly", 0.3)];
    expect(scoreSignals(signals, 0.5429).shouldBlock).toBe(true);
    expect(scoreSignals(signals, 0.5431).shouldBlock).toBe(false);
  });

  test("unknown categories weigh 0.5 and are listed after known ones", () => {
    const result = scoreSignals([signal("zeta_custom", 1), signal("format_anomaly", 0.3)], 0.9);
    expect(result.riskScore).toBe(0.55); // 1 × 0.5 × 0.7 + 0.2
    expect(result.summary).toBe("Risk: 0.55. Signals: format_anomaly, zeta_custom.");
  });

  test("risk is capped at 1", () => {
    const many = Array.from({ length: 12 }, () => signal("format_anomaly", 0.3));
    expect(scoreSignals(many, 0.6).riskScore).toBe(1);
  });

  test("any hard category blocks with risk 1.0 and names categories in table order", () => {
    const result = scoreSignals([signal("canary_compromise", 0.9), signal("format_anomaly", 0.3), signal("persona_shift", 0.9)], 1);
    expect(result).toEqual({
      riskScore: 1,
      shouldBlock: true,
      hardBlocked: true,
      summary: "HARD BLOCK: High-confidence signals in: persona_shift, canary_compromise.",
    });
  });
});
