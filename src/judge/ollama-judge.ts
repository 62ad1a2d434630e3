// An LLM judge on Ollama: a second model reads the input and the canary's reply and answers SAFE
// or UNSAFE (judge-verdict.ts). It replaces the regex analyzer when configured.
import { OllamaChatBackend, type ChatClientOptions } from "../canary/chat-backend.js";
import { requiredCanaryContext } from "../canary/context.js";
import { checkNumCtx } from "../canary/options.js";
import { ChatJudge, JUDGE_SYSTEM_PROMPT, judgeRole } from "./judge-verdict.js";
import { brandAnalyzer } from "../analysis/identity.js";

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

/** An LLM judge on Ollama; its num_ctx is one value for the judge's life (Ollama reloads on a change). */
export class OllamaJudge extends ChatJudge<OllamaChatBackend> {
  readonly provider = "ollama" as const;

  constructor(options: OllamaJudgeOptions = {}) {
    // An empty judge model would otherwise switch the judge on while the regex analyzer ran.
    super(new OllamaChatBackend(options, JUDGE_ROLE), checkNumCtx(options.numCtx));
    brandAnalyzer(this, "ollama_judge", new.target === OllamaJudge);
  }
}
