// Runs the behavioural analyzer over one (input, response) pair into the demo's case record. The
// analyzer is injected so replay can prove an analyzer failure is reported as ANALYSIS FAILURE;
// by default it is this build's regex analyzer with the default canary system prompt.
import { BehavioralAnalyzer } from "../analysis/behavioral.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { errorClassName } from "../core/errors.js";

/** What the demo needs of an analyzer (replay's tests inject a failing one). */
export type ResponseAnalyzer = Pick<BehavioralAnalyzer, "analyzeResponse">;

export function defaultResponseAnalyzer(): ResponseAnalyzer {
  return new BehavioralAnalyzer({ systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT });
}

/** One case as reported by `demo` (human and JSON). Inputs are the fixed synthetic pair. */
export interface DemoCase {
  readonly id: string;
  readonly input: string;
  /** The canary's reply; shown because the demo inputs are fixed, never user text. */
  readonly response: string;
  readonly risk: number | null;
  /** Signal categories in the analyzer's order, duplicates kept. */
  readonly signals: readonly string[];
  readonly verdict: "PASS" | "BLOCK" | "DEGRADED";
  readonly canary_status: "exercised" | "failed" | "recorded_capture";
  readonly analysis_method: "regex" | "none";
  readonly analysis_status: "exercised" | "failed" | "not_applicable";
  readonly error?: string;
  readonly latency_seconds?: number;
}

/**
 * The record of a case whose reply the analyzer read (its risk, signals and verdict), or the class
 * name of the analyzer's failure (never its message).
 */
export function analyzeReply(
  analyzer: ResponseAnalyzer,
  reply: Pick<DemoCase, "id" | "input" | "response" | "canary_status" | "latency_seconds">,
): DemoCase | { readonly errorClass: string } {
  try {
    const result = analyzer.analyzeResponse(reply.input, reply.response);
    const risk = result.riskScore;
    if (typeof risk !== "number" || !Number.isFinite(risk)) return { errorClass: "InvalidRisk" };
    const verdict = result.shouldBlock === true ? "BLOCK" : "PASS";
    return { ...reply, risk, signals: result.signals.map((s) => s.category), verdict, analysis_method: "regex", analysis_status: "exercised" };
  } catch (error) {
    return { errorClass: errorClassName(error) };
  }
}
