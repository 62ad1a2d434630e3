// Contract between analyzers (regex behavioural analyzer, LLM judge) and the pipeline.
import type { CanaryResult } from "../canary/types.js";

/** Whether the canary layer ran for a check, and if not, why. */
export type CanaryStatus = "exercised" | "failed" | "disabled" | "skipped_after_block";
/** Which analysis read the canary's reply: the regex analyzer, an LLM judge, or none. */
export type AnalysisMethod = "regex" | "llm_judge" | "none";
/** Whether the analysis ran: exercised, failed (nothing was inspected), or not applicable. */
export type AnalysisStatus = "exercised" | "failed" | "not_applicable";

/** One finding of the analyzer: its category, severity, a description and an evidence excerpt. */
export interface Signal {
  readonly category: string;
  readonly description: string;
  readonly severity: number;
  /** A short excerpt of the canary reply; stays inside the analyzer's result, never serialized. */
  readonly evidence: string;
}

/** What an analyzer concluded about one canary reply: risk, signals, and whether the reply was inspected at all. */
export interface AnalysisResult {
  /** null when nothing was measured (failed canary or failed analysis). */
  readonly riskScore: number | null;
  readonly shouldBlock: boolean;
  readonly signals: readonly Signal[];
  readonly summary: string;
  readonly hardBlocked: boolean;
  readonly degraded: boolean;
  readonly canaryStatus: CanaryStatus;
  readonly analysisMethod: AnalysisMethod;
  readonly analysisStatus: AnalysisStatus;
}

/** A reader of canary replies (the regex analyzer or an LLM judge). */
export interface Analyzer {
  readonly method: "regex" | "llm_judge";
  /** Analyzes the canary's reply to `userInput`; reports failure as a result, never by throwing. */
  analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult>;
  /** Whether the backend answers, for the analyzers that call one (the LLM judges; without it the health report leaves judge fields out). */
  isAvailable?(): Promise<boolean>;
}
