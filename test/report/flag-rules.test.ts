// Which rule a flag is reported under: by what found it. A structural match or a strong canary
// finding (advisory severity high) is only ever a flag in mode advisory, and keeps the rule of
// what found it; weaker canary evidence (medium, low) is flag-canary in every mode.
import { describe, expect, it } from "vitest";
import type { BatchItem } from "../../src/documents/schemas.js";
import type { VerdictJson } from "../../src/documents/verdict-schema.js";
import { reportItemFromBatch } from "../../src/report/report-item.js";

const verdict = (structural: "passed" | "blocked", severity: "low" | "medium" | "high"): VerdictJson =>
  ({
    safe: true,
    total_latency: 0.1,
    blocked_by: null,
    summary: "Input passed with an advisory",
    canary_risk_score: 0.4,
    degraded: false,
    canary_status: "exercised",
    analysis_method: "regex",
    analysis_status: "exercised",
    layers: [
      { name: "structural_filter", passed: structural === "passed", status: structural, latency: 0.01, details: "" },
      { name: "canary_probe", passed: true, status: "passed", latency: 0.09, details: "" },
    ],
    advisory: { flagged: true, severity, signals: ["persona_shift"], message: "advisory" },
  }) as VerdictJson;

const flagged = (v: VerdictJson): BatchItem => ({ index: 0, id: null, source: null, sha256: "a".repeat(64), length: 10, state: "flag", verdict: v });
const ruleOf = (v: VerdictJson) => reportItemFromBatch(flagged(v), 1).rule?.id;

describe("the rule of a flagged batch item", () => {
  it("is block-structural when the structural layer matched, block-canary for a strong canary finding, flag-canary otherwise", () => {
    expect(ruleOf(verdict("blocked", "high"))).toBe("little-canary/block-structural");
    expect(ruleOf(verdict("passed", "high"))).toBe("little-canary/block-canary");
    expect(ruleOf(verdict("passed", "medium"))).toBe("little-canary/flag-canary");
    expect(ruleOf(verdict("passed", "low"))).toBe("little-canary/flag-canary");
  });
});
