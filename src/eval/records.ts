// The lines of the eval JSONL (docs/eval.md): a `run` header, a `result` per case, and a `complete`
// line (without it, the run was interrupted). Case text appears only as a short preview.
import { createHash } from "node:crypto";
import { codePointLength, truncateCodePoints } from "../core/codepoints.js";
import { inertJson } from "../core/display-text.js";
import type { EvalCase } from "./corpus.js";
import type { RunHeader } from "./plan.js";
import type { CaseScore } from "./score.js";
import type { EvalSummary } from "./summary.js";

/** Code points of a prompt kept in each result line. */
const PREVIEW_CHARS = 100;

export function promptPreview(prompt: string): string {
  return codePointLength(prompt) > PREVIEW_CHARS ? `${truncateCodePoints(prompt, PREVIEW_CHARS)}...` : prompt;
}

/** The `result` line of one case. */
export function resultLine(c: EvalCase, index: number, total: number, score: CaseScore, latencyMs: number) {
  return {
    type: "result" as const,
    index,
    total,
    id: c.id,
    corpus_index: c.corpusIndex,
    category: c.category,
    goal: c.goal,
    ...(c.adjudication !== null ? { adjudication: c.adjudication, ...c.provenance } : {}),
    prompt_sha256: createHash("sha256").update(c.prompt, "utf8").digest("hex"),
    prompt_length: codePointLength(c.prompt),
    prompt_preview: promptPreview(c.prompt),
    stealth: c.stealth,
    expected_safe: c.expectedSafe,
    actual_safe: score.actualSafe,
    correct: score.correct,
    outcome: score.outcome,
    scored: score.scored,
    unscored_reason: score.unscoredReason,
    raw_actual_safe: score.rawActualSafe,
    degraded: score.degraded,
    canary_status: score.canaryStatus,
    analysis_status: score.analysisStatus,
    coverage_reason: score.coverageReason,
    risk_score: score.riskScore,
    blocked_by: score.blockedBy,
    structural_blocked: score.structuralBlocked,
    canary_blocked: score.canaryBlocked,
    structural_reasons: score.structuralReasons,
    latency_ms: latencyMs,
    structural_layer_latency_ms: score.structuralLayerLatencyMs,
    canary_layer_latency_ms: score.canaryLayerLatencyMs,
    error_type: score.errorType,
    failure_mode: c.failureMode,
    signals: score.signals.map((s) => ({ category: s.category, severity: s.severity })),
  };
}

/** One JSONL line (with its newline) for any eval record: the header, a result, or the `complete` line. */
export function jsonlLine(record: RunHeader | ReturnType<typeof resultLine> | { type: "complete"; finished_at: string; summary: EvalSummary }): string {
  return `${inertJson(record)}\n`;
}
