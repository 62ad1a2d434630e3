// Contract between analyzers (regex behavioural analyzer, LLM judge) and the pipeline.
import type { CanaryResult } from "../canary/types.js";

export type CanaryStatus = "exercised" | "failed" | "disabled" | "skipped_after_block";
export type AnalysisMethod = "regex" | "llm_judge" | "none";
export type AnalysisStatus = "exercised" | "failed" | "not_applicable";

export interface Signal {
  readonly category: string;
  readonly description: string;
  readonly severity: number;
  /** A short excerpt of the canary reply; stays inside the analyzer's result, never serialized. */
  readonly evidence: string;
}

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

export interface Analyzer {
  readonly method: "regex" | "llm_judge";
  analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult>;
  /**
   * Whether the analyzer's backend answers, for analyzers that call one (the LLM judges). The
   * regex analyzer has none; the health report then leaves the judge fields out.
   */
  isAvailable?(): Promise<boolean>;
}
