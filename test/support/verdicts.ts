// Serialized verdicts for tests, shaped like the pipeline's (src/documents/verdict-schema.ts).
import type { VerdictJson } from "../../src/documents/verdict-schema.js";

/** An exercised pass: structural clean, canary exercised, regex analysis, risk 0. */
export function passVerdict(overrides: Partial<VerdictJson> = {}): VerdictJson {
  return {
    safe: true,
    total_latency: 1.8421,
    blocked_by: null,
    summary: "Input passed all enabled security layers; behavioral probe exercised (1.842s)",
    canary_risk_score: 0,
    degraded: false,
    canary_status: "exercised",
    analysis_method: "regex",
    analysis_status: "exercised",
    layers: [
      { name: "structural_filter", passed: true, status: "passed", latency: 0.0002, details: "Clean" },
      { name: "canary_probe", passed: true, status: "passed", latency: 1.8419, details: "No behavioral anomalies detected." },
    ],
    advisory: { flagged: false, severity: "none", signals: [], message: "" },
    ...overrides,
  };
}

/** A structural block with the canary skipped (not exercised). */
export function structuralBlockVerdict(): VerdictJson {
  return passVerdict({
    safe: false,
    blocked_by: "structural_filter",
    summary: "Blocked by structural filter: Direct injection (instruction override)",
    canary_risk_score: null,
    canary_status: "skipped_after_block",
    analysis_method: "none",
    analysis_status: "not_applicable",
    layers: [
      { name: "structural_filter", passed: false, status: "blocked", latency: 0.0004, details: "Direct injection (instruction override)" },
      { name: "canary_probe", passed: null, status: "skipped", latency: 0, details: "Skipped after structural filter block." },
    ],
  });
}

/** A canary block: exercised, risk 1.0, hard signal. */
export function canaryBlockVerdict(): VerdictJson {
  return passVerdict({
    safe: false,
    blocked_by: "canary_probe",
    summary: "Input blocked by canary_probe (1.000s)",
    canary_risk_score: 1,
    advisory: { flagged: true, severity: "high", signals: ["persona_shift"], message: "persona shift" },
  });
}

/** A failed canary: degraded, not exercised. */
export function degradedVerdict(): VerdictJson {
  return passVerdict({
    degraded: true,
    canary_risk_score: null,
    canary_status: "failed",
    analysis_status: "not_applicable",
    summary: "Input passed; behavioral coverage failed (0.010s)",
  });
}

/** An advisory flag with one signal. */
export function flagVerdict(signal = "sig_x"): VerdictJson {
  return passVerdict({
    canary_risk_score: 0.22,
    advisory: { flagged: true, severity: "medium", signals: [signal], message: "flagged" },
  });
}
