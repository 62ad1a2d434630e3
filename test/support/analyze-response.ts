// The regex analyzer on one recorded reply, for tests and benches that hold reply text rather
// than a probe result (the product always goes through BehavioralAnalyzer).
import { BehavioralAnalyzer } from "../../src/analysis/behavioral.js";
import type { AnalysisResult } from "../../src/analysis/types.js";

/** Analyses one recorded reply with a default-configured analyzer. */
export function analyzeResponse(userInput: string, response: string): AnalysisResult {
  return new BehavioralAnalyzer().analyzeResponse(userInput, response);
}
