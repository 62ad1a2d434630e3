import { describe, expect, it } from "vitest";
import { classifySegmentVerdict, detectionSignals, extractSignals } from "../../src/documents/classify.js";
import { VerdictJsonSchema } from "../../src/documents/verdict-schema.js";
import { canaryBlockVerdict, degradedVerdict, flagVerdict, passVerdict, structuralBlockVerdict } from "../support/verdicts.js";

const classify = (v: unknown) => classifySegmentVerdict(v);

describe("classifySegmentVerdict", () => {
  it("an exercised clean verdict with risk 0 is an exercised pass", () => {
    expect(classify(passVerdict())).toEqual({ state: "pass", exercised: true });
    expect(classify(passVerdict({ canary_risk_score: 0.0 }))).toEqual({ state: "pass", exercised: true });
  });

  it("a structural block is a block that exercised nothing; a canary block is exercised", () => {
    expect(classify(structuralBlockVerdict())).toEqual({ state: "block", exercised: false });
    expect(classify(canaryBlockVerdict())).toEqual({ state: "block", exercised: true });
  });

  it("degraded wins over a flag, and is never exercised", () => {
    const v = { ...degradedVerdict(), advisory: { flagged: true, severity: "low", signals: [], message: "" } };
    expect(classify(v)).toEqual({ state: "degraded", exercised: false });
  });

  it("an advisory flag is a flag", () => {
    expect(classify(flagVerdict())).toEqual({ state: "flag", exercised: true });
  });

  it("any measured non-zero risk is a flag under strict/v1", () => {
    for (const risk of [1e-9, 0.3, 1.0, 1]) {
      expect(classify(passVerdict({ canary_risk_score: risk }))).toEqual({ state: "flag", exercised: true });
    }
  });

  it("a missing canary or analysis is unexercised", () => {
    expect(classify(passVerdict({ canary_status: "disabled", canary_risk_score: null, analysis_method: "none", analysis_status: "not_applicable" }))).toEqual({
      state: "unexercised",
      exercised: false,
    });
    expect(classify(passVerdict({ analysis_status: "failed" }))).toEqual({ state: "unexercised", exercised: false });
  });

  it("a pass with a null risk is a pass that exercised nothing", () => {
    expect(classify(passVerdict({ canary_risk_score: null }))).toEqual({ state: "pass", exercised: false });
  });

  it("out-of-range, non-finite or non-numeric risks are errors", () => {
    for (const risk of [-0.1, 1.0000001, 1.5, Infinity, -Infinity, Number.NaN, true, false, "0.0", [0.0]]) {
      const result = classify({ ...passVerdict(), canary_risk_score: risk });
      expect(result).toMatchObject({ error: "invalid_verdict" });
    }
  });

  it("safe and degraded must be booleans; advisory needs a boolean flagged", () => {
    expect(classify({ ...passVerdict(), safe: "no" })).toMatchObject({ error: "invalid_verdict" });
    expect(classify({ ...passVerdict(), degraded: 0 })).toMatchObject({ error: "invalid_verdict" });
    expect(classify({ ...passVerdict(), advisory: { flagged: "yes" } })).toMatchObject({ error: "invalid_verdict" });
    expect(classify({ ...passVerdict(), advisory: [] })).toMatchObject({ error: "invalid_verdict" });
    expect(classify(null)).toMatchObject({ error: "invalid_verdict" });
    expect(classify([passVerdict()])).toMatchObject({ error: "invalid_verdict" });
  });

  it("a safe verdict naming a blocking layer is an error", () => {
    expect(classify(passVerdict({ blocked_by: "canary_probe" }))).toMatchObject({ error: "invalid_verdict" });
  });

  it("an llm_judge verdict is refused, regex and none are accepted", () => {
    expect(classify(passVerdict({ analysis_method: "llm_judge" }))).toMatchObject({ error: "unsupported_analysis" });
    expect(classify(passVerdict({ analysis_method: "regex" }))).toEqual({ state: "pass", exercised: true });
    expect(classify(passVerdict({ analysis_method: "none" }))).toEqual({ state: "pass", exercised: true });
  });

  it("a verdict off the verdict schema is an error, even when the rules would pass it", () => {
    expect(classify({ ...passVerdict(), extra: 1 })).toMatchObject({ error: "invalid_verdict" });
    const { layers: _layers, ...missingLayers } = passVerdict();
    expect(classify(missingLayers)).toMatchObject({ error: "invalid_verdict" });
  });

  it("a fail-closed denial is degraded, not a block", () => {
    const denied = { ...degradedVerdict(), safe: false, blocked_by: "fail_closed" };
    expect(classify(denied)).toEqual({ state: "degraded", exercised: false });
    expect(extractSignals(denied)).toEqual([]);
  });

  it("a verdict already held to the verdict schema classifies the same without parsing it again", () => {
    const verdicts: unknown[] = [
      passVerdict(),
      structuralBlockVerdict(),
      canaryBlockVerdict(),
      flagVerdict(),
      degradedVerdict(),
      { ...degradedVerdict(), safe: false, blocked_by: "fail_closed" },
      passVerdict({ canary_risk_score: null }),
      passVerdict({ blocked_by: "canary_probe" }),
      passVerdict({ analysis_method: "llm_judge" }),
      passVerdict({ analysis_status: "failed" }),
      ...[-0.1, 0.3, 1, 1.5].map((risk) => passVerdict({ canary_risk_score: risk })),
    ];
    let parsed = 0;
    for (const verdict of verdicts) {
      const checked = VerdictJsonSchema.safeParse(verdict);
      if (!checked.success) continue;
      parsed++;
      expect(classifySegmentVerdict(checked.data, true)).toEqual(classify(verdict));
    }
    expect(parsed).toBeGreaterThanOrEqual(10);
  });

  it("error messages never contain verdict text", () => {
    const result = classify({ ...passVerdict(), summary: "SECRET", safe: "SECRET" });
    expect(JSON.stringify(result)).not.toContain("SECRET");
  });
});

describe("signals", () => {
  it("take blocked_by and the signals of a flagged advisory, each cut to 128 code points", () => {
    expect(extractSignals(canaryBlockVerdict())).toEqual(["canary_probe", "persona_shift"]);
    expect(extractSignals(structuralBlockVerdict())).toEqual(["structural_filter"]);
    const long = "\u{1F600}".repeat(200);
    const [cut] = extractSignals(flagVerdict(long));
    expect(cut).toBe("\u{1F600}".repeat(128));
    const unflagged = passVerdict({ advisory: { flagged: false, severity: "none", signals: ["ignored"], message: "" } });
    expect(extractSignals(unflagged)).toEqual([]);
  });

  it("detection_signals is the code-point-sorted union, first 32", () => {
    expect(
      detectionSignals([
        ["b", "a"],
        ["a", "\u{1F600}", "\uFF01"],
      ]),
    ).toEqual(["a", "b", "\uFF01", "\u{1F600}"]);
    const many = Array.from({ length: 40 }, (_, i) => `s${String(i).padStart(2, "0")}`);
    expect(detectionSignals([many])).toEqual(many.slice(0, 32));
  });
});
