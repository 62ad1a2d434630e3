// The privacy-preserving view of an analysis: categories, severities and
// statuses only. It is all that verdict layers and callbacks ever see of the canary: no reply,
// no prompt, no evidence excerpt. Values an analyzer got wrong are normalised, never trusted.
import type { AnalysisMethod, AnalysisResult, AnalysisStatus, CanaryStatus } from "../analysis/types.js";
import type { AnalysisSnapshot } from "./verdict.js";

// The analyzer's categories (analysis/signals.ts) and the judge's, restated: the lean pipeline
// imports no analyzer code (test/pipeline/create.test.ts).
const KNOWN_CATEGORIES = new Set([
  "persona_shift",
  "instruction_echo",
  "system_prompt_leak",
  "refusal_collapse",
  "tool_hallucination",
  "format_anomaly",
  "semantic_discontinuity",
  "attack_compliance",
  "canary_compromise",
  "llm_judge",
]);

/** The privacy-preserving view of an analysis: categories and numbers only. */
export function snapshotOf(analysis: AnalysisResult): AnalysisSnapshot {
  const finiteOrNull = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
  const canaryStatuses: readonly CanaryStatus[] = ["exercised", "failed", "disabled", "skipped_after_block"];
  const methods: readonly AnalysisMethod[] = ["regex", "llm_judge", "none"];
  const statuses: readonly AnalysisStatus[] = ["exercised", "failed", "not_applicable"];
  return Object.freeze({
    riskScore: finiteOrNull(analysis.riskScore),
    shouldBlock: analysis.shouldBlock === true,
    signals: Object.freeze(
      (Array.isArray(analysis.signals) ? analysis.signals : []).map((signal) =>
        Object.freeze({
          category: KNOWN_CATEGORIES.has(signal.category) ? signal.category : "unknown",
          severity: finiteOrNull(signal.severity),
        }),
      ),
    ),
    hardBlocked: analysis.hardBlocked === true,
    degraded: analysis.degraded === true,
    canaryStatus: canaryStatuses.includes(analysis.canaryStatus) ? analysis.canaryStatus : "failed",
    analysisMethod: methods.includes(analysis.analysisMethod) ? analysis.analysisMethod : "none",
    analysisStatus: statuses.includes(analysis.analysisStatus) ? analysis.analysisStatus : "failed",
  });
}
