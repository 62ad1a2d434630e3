// The regex behavioural analyzer: reads the canary's reply (and, for two checks, the input) and
// reports what in it shows the input took control of the canary. Signals keep a short evidence
// excerpt for in-process callers; nothing here logs or throws with reply or input text.
import type { CanaryResult } from "../canary/types.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import { UsageError } from "../core/errors.js";
import type { AnalysisResult, Analyzer, Signal } from "./types.js";
import { brandAnalyzer, type RegexAnalyzerIdentity } from "./identity.js";
import { DEFAULT_BLOCK_THRESHOLD } from "./signals.js";
import { normalizeForMatching, normalizeForSyntax } from "./_text.js";
import { runRules } from "./_rules.js";
import { INSTRUCTION_ECHO_RULES, PERSONA_SHIFT_RULES } from "./reaction-rules.js";
import { CANARY_COMPROMISE_RULES } from "./compromise-rules.js";
import { checkSystemPromptLeak, deriveLeakFragments, type LeakFragment } from "./leak.js";
import { checkRefusalCollapse } from "./refusal.js";
import { checkFormatAnomaly, checkToolHallucination } from "./format.js";
import { checkSemanticDiscontinuity } from "./discontinuity.js";
import { checkAttackCompliance } from "./compliance.js";
import { scoreSignals, unmeasured } from "./score.js";

/** Options of BehavioralAnalyzer. */
export interface BehavioralAnalyzerOptions {
  /** Soft-score threshold, finite in [0, 1]. Default 0.6. */
  readonly blockThreshold?: number;
  /** The canary's system prompt; leak fragments are derived from it. */
  readonly systemPrompt?: string;
}

/**
 * Version of the regex behavioural analyzer: its rules (every check module here), the text views
 * (_text.ts), the category table (signals.ts) and the scoring (score.ts). The verdict cache keys
 * every stored verdict by it: bump it with any edit that can alter a signal, a score or a block.
 */
export const REGEX_ANALYZER_VERSION = 2;

export const CANARY_FAILED_SUMMARY = "Canary probe failed; behavioral analysis was not run, so this input was not inspected.";

/** The regex behavioural analyzer: reads the canary's reply and reports the signals that show the input took control of it. */
export class BehavioralAnalyzer implements Analyzer {
  readonly method = "regex" as const;
  readonly blockThreshold: number;
  readonly systemPrompt: string;
  readonly #leakFragments: readonly LeakFragment[];

  constructor(options: BehavioralAnalyzerOptions = {}) {
    const blockThreshold = options.blockThreshold ?? DEFAULT_BLOCK_THRESHOLD;
    const systemPrompt = options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT;
    if (typeof blockThreshold !== "number" || !Number.isFinite(blockThreshold) || blockThreshold < 0 || blockThreshold > 1) {
      throw new UsageError("blockThreshold must be a finite number between 0 and 1");
    }
    if (typeof systemPrompt !== "string") throw new UsageError("systemPrompt must be a string");
    this.blockThreshold = blockThreshold;
    this.systemPrompt = systemPrompt;
    this.#leakFragments = deriveLeakFragments(systemPrompt);
    brandAnalyzer(this, "regex", new.target === BehavioralAnalyzer);
  }

  /** What can change this analyzer's conclusion about the same reply (read by the verdict cache). */
  identity(): RegexAnalyzerIdentity {
    return { method: "regex", version: REGEX_ANALYZER_VERSION, blockThreshold: this.blockThreshold, systemPrompt: this.systemPrompt };
  }

  /** Analyzes one canary result; a failed probe gives an explicit "not inspected" result, never a clean one. */
  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return unmeasured(CANARY_FAILED_SUMMARY, { canaryStatus: "failed", analysisMethod: "regex", analysisStatus: "not_applicable" });
    return this.analyzeResponse(userInput, canary.response);
  }

  /** Synchronous core: analyses one reply to one input. */
  analyzeResponse(userInput: string, response: string): AnalysisResult {
    if (typeof userInput !== "string" || typeof response !== "string") {
      throw new UsageError("analyzeResponse needs the input and the reply as strings");
    }
    const signals = collectSignals(userInput, response, this.#leakFragments);
    const score = scoreSignals(signals, this.blockThreshold);
    // Named fields, not a spread of the score plus more fields: that slow path cost a third of an analysis (bench:overhead).
    return {
      riskScore: score.riskScore,
      shouldBlock: score.shouldBlock,
      hardBlocked: score.hardBlocked,
      summary: score.summary,
      signals,
      degraded: false,
      canaryStatus: "exercised",
      analysisMethod: "regex",
      analysisStatus: "exercised",
    };
  }
}

/** All signals for one reply, in rule order (reaction patterns, then output patterns). */
function collectSignals(userInput: string, response: string, leakFragments: readonly LeakFragment[]): Signal[] {
  const reply = normalizeForMatching(response);
  // Normalised on first use: only attack_compliance reads it, when the reply could complete a signal.
  let normalizedInput: string | undefined;
  const input = (): string => (normalizedInput ??= normalizeForMatching(userInput));
  return [
    ...runRules("persona_shift", PERSONA_SHIFT_RULES, reply),
    ...runRules("instruction_echo", INSTRUCTION_ECHO_RULES, reply),
    ...checkSystemPromptLeak(reply, leakFragments),
    ...checkRefusalCollapse(reply),
    ...checkToolHallucination(normalizeForSyntax(response)),
    ...checkFormatAnomaly(response),
    ...checkSemanticDiscontinuity(userInput, response),
    ...checkAttackCompliance(input, reply),
    ...runRules("canary_compromise", CANARY_COMPROMISE_RULES, reply),
  ];
}
