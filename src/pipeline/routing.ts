// Mode routing of an exercised analysis and the fixed texts of the
// canary layer: which analyses block, which become an advisory of which severity, in each mode.
import { SecurityAdvisory } from "./advisory.js";
import type { ResolvedPipelineOptions } from "../canary/pipeline-options.js";
import type { AnalysisSnapshot, CoverageReason, LayerResult } from "./verdict.js";

/** Whether an exercised analysis blocks in `mode`, and the advisory it leaves otherwise. */
export function routeExercised(
  mode: ResolvedPipelineOptions["mode"],
  snap: AnalysisSnapshot,
  names: readonly string[],
  details: string,
): { block: boolean; advisory: SecurityAdvisory } {
  if (snap.shouldBlock && snap.hardBlocked) {
    if (mode === "advisory") return { block: false, advisory: new SecurityAdvisory(true, "high", names, details) };
    return { block: true, advisory: SecurityAdvisory.none() };
  }
  if (snap.shouldBlock) {
    if (mode === "block") return { block: true, advisory: SecurityAdvisory.none() };
    return { block: false, advisory: new SecurityAdvisory(true, "medium", names, details) };
  }
  if ((snap.riskScore ?? 0) > 0 && names.length > 0) {
    return { block: false, advisory: new SecurityAdvisory(true, "low", names, `Low-confidence signals: ${names.join(", ")}`) };
  }
  return { block: false, advisory: SecurityAdvisory.none() };
}

/** The canary layer of a check that did not call the canary (disabled, or skipped after a block). */
export function skippedCanaryLayer(details: string): LayerResult {
  return { name: "canary_probe", passed: null, latency: 0, details, status: "skipped", coverageReason: null, snapshot: null, signals: [] };
}

/** The canary layer of a check whose canary gave no coverage, and why. */
export function failedCanaryLayer(details: string, coverageReason: CoverageReason, latency: number, snapshot: AnalysisSnapshot | null): LayerResult {
  return { name: "canary_probe", passed: null, latency, details, status: "failed", coverageReason, snapshot, signals: [] };
}

/** Signal categories in first-seen order, each once. */
export function uniqueCategories(snap: AnalysisSnapshot): string[] {
  return [...new Set(snap.signals.map((signal) => signal.category))];
}
