// An LLM judge on Ollama: a second model reads the input and the canary's reply
// and answers SAFE or UNSAFE. It replaces the regex analyzer when configured. Any failure or
// abstention is a degraded, unmeasured result; it never throws for backend trouble and never
// calls the backend when the canary itself failed.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { ChatClient, OllamaChatBackend, type ChatRole } from "../canary/chat-backend.js";
import type { FetchLike } from "../canary/http-call.js";
import { JUDGE_SYSTEM_PROMPT, judgeUserContent } from "./judge-prompt.js";
import { canaryNotExercised, fromJudgeChat, judgeFailed } from "./judge-verdict.js";

export const DEFAULT_OLLAMA_JUDGE_MODEL = "qwen3:4b";

const JUDGE_ROLE: ChatRole = Object.freeze({
  defaults: { model: DEFAULT_OLLAMA_JUDGE_MODEL, timeoutSeconds: 15, maxTokens: 512 },
  name: "judge",
  urlOption: "judge ollamaUrl",
});

export interface OllamaJudgeOptions {
  readonly model?: string;
  readonly ollamaUrl?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  readonly fetch?: FetchLike;
}

export class OllamaJudge extends ChatClient<OllamaChatBackend> implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "ollama" as const;

  constructor(options: OllamaJudgeOptions = {}) {
    // An empty judge model would otherwise switch the judge on while the regex analyzer ran.
    super(new OllamaChatBackend(options, JUDGE_ROLE));
  }

  /** Judges one canary reply; a failure or abstention is a degraded, unmeasured result, never a pass. */
  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const turn = { systemPrompt: JUDGE_SYSTEM_PROMPT, userContent: judgeUserContent(userInput, canary.response), maxTokens: this.maxTokens };
      return fromJudgeChat(await this.backend.chat(turn, null), canary.response);
    } catch {
      return judgeFailed();
    }
  }
}
