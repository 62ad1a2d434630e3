// Scoring of signals: a hard-category signal blocks outright (risk 1.0); else risk = min(1,
// max(severity × weight) × 0.7 + 0.1 × count), blocking when the *unrounded* risk reaches the
// threshold, reported rounded half-even. Summaries name categories in table order, never quote text.
import type { AnalysisResult, Signal } from "./types.js";
import { HARD_BLOCK_CATEGORIES, SIGNAL_CATEGORY_ORDER, categoryWeight } from "./signals.js";

/** The verdict fields of an analysis of scored signals, with a risk always measured. */
type Score = Pick<AnalysisResult, "shouldBlock" | "hardBlocked" | "summary"> & { readonly riskScore: number };

/**
 * Round to two decimals, ties to even, on the exact binary value (as Python's `round`).
 * `toFixed` already rounds the exact value correctly except on exact ties, where it rounds
 * up; a value with three or more decimals is an exact binary tie only at odd multiples of 1/8.
 */
export function roundHalfEven2(value: number): number {
  const eighths = value * 8;
  if (Number.isInteger(eighths) && Math.abs(eighths % 2) === 1) {
    const downCents = Math.floor(value * 100);
    return (downCents % 2 === 0 ? downCents : downCents + 1) / 100;
  }
  return Number(value.toFixed(2));
}

/** Distinct categories of `signals` in table order, unknown ones after in code-unit order. */
function orderedCategories(signals: readonly Signal[]): string[] {
  const present = new Set(signals.map((signal) => signal.category));
  const known = SIGNAL_CATEGORY_ORDER.filter((name) => present.has(name));
  const unknown = [...present].filter((name) => !(SIGNAL_CATEGORY_ORDER as readonly string[]).includes(name)).sort();
  return [...known, ...unknown];
}

/** A result that measured nothing (risk null, degraded); `fields` say which analysis and why, and what a judge did measure. */
export function unmeasured(
  summary: string,
  fields: Pick<AnalysisResult, "canaryStatus" | "analysisMethod" | "analysisStatus"> & Partial<AnalysisResult>,
): AnalysisResult {
  return { riskScore: null, shouldBlock: false, signals: [], summary, hardBlocked: false, degraded: true, ...fields };
}

export function scoreSignals(signals: readonly Signal[], blockThreshold: number): Score {
  if (signals.length === 0) {
    return { riskScore: 0, shouldBlock: false, hardBlocked: false, summary: "No behavioral anomalies detected." };
  }
  const hard = signals.filter((signal) => HARD_BLOCK_CATEGORIES.has(signal.category));
  if (hard.length > 0) {
    return {
      riskScore: 1,
      shouldBlock: true,
      hardBlocked: true,
      summary: `HARD BLOCK: High-confidence signals in: ${orderedCategories(hard).join(", ")}.`,
    };
  }
  const strongest = Math.max(0, ...signals.map((signal) => signal.severity * categoryWeight(signal.category)));
  const risk = Math.min(1, strongest * 0.7 + 0.1 * signals.length);
  const rounded = roundHalfEven2(risk);
  return {
    riskScore: rounded,
    shouldBlock: risk >= blockThreshold,
    hardBlocked: false,
    summary: `Risk: ${rounded.toFixed(2)}. Signals: ${orderedCategories(signals).join(", ")}.`,
  };
}
