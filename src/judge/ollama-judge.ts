// An LLM judge on Ollama: a second model reads the input and the canary's reply and answers SAFE
// or UNSAFE (judge-verdict.ts). It replaces the regex analyzer when configured.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { ChatClient, OllamaChatBackend, type ChatClientOptions } from "../canary/chat-backend.js";
import { requiredCanaryContext } from "../canary/context.js";
import { checkNumCtx } from "../canary/options.js";
import { JUDGE_SYSTEM_PROMPT } from "./judge-prompt.js";
import { judgeCanaryReply, judgeIdentity, judgeRole } from "./judge-verdict.js";
import { brandAnalyzer, type JudgeIdentity } from "../analysis/identity.js";

const DEFAULT_OLLAMA_JUDGE_MODEL = "qwen3:4b";

const JUDGE_ROLE = judgeRole(DEFAULT_OLLAMA_JUDGE_MODEL, "judge ollamaUrl");

/** The judge's generation settings (model, timeout, reply budget, temperature, seed, fetch), its URL and num_ctx. */
export interface OllamaJudgeOptions extends ChatClientOptions {
  readonly ollamaUrl?: string;
  /**
   * Context window sent as options.num_ctx, sized to hold a checked text and the canary's reply;
   * null/undefined leaves the backend default, which can silently cut a long judge prompt.
   */
  readonly numCtx?: number | null;
}

/**
 * The num_ctx a judge call needs: the judge's instructions, one checked text of `windowChars`
 * code points and a canary reply of up to `canaryReplyTokens` tokens (counted as four code
 * points each), with the same pessimistic estimate as the canary's own window.
 */
export function requiredJudgeContext(windowChars: number, canaryReplyTokens: number): number {
  const maxTokens = JUDGE_ROLE.defaults.maxTokens;
  return requiredCanaryContext({ segmentChars: windowChars + 4 * canaryReplyTokens, systemPrompt: JUDGE_SYSTEM_PROMPT, maxTokens });
}

export class OllamaJudge extends ChatClient<OllamaChatBackend> implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "ollama" as const;
  /** The num_ctx every judge call sends (one value for the judge's life: Ollama reloads on a change). */
  readonly numCtx: number | null;

  constructor(options: OllamaJudgeOptions = {}) {
    // An empty judge model would otherwise switch the judge on while the regex analyzer ran.
    super(new OllamaChatBackend(options, JUDGE_ROLE));
    this.numCtx = checkNumCtx(options.numCtx);
    brandAnalyzer(this, "ollama_judge", new.target === OllamaJudge);
  }

  /** What can change this judge's conclusion about the same reply, but its model's digest (read by the verdict cache). */
  identity(): JudgeIdentity {
    return judgeIdentity(this.provider, this, this.numCtx);
  }

  /** Judges one canary reply; a failure or abstention is a degraded, unmeasured result, never a pass. */
  analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    return judgeCanaryReply(userInput, canary, this.maxTokens, (turn) => this.backend.chat(turn, this.numCtx));
  }
}
