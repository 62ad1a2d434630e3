// An LLM judge on Ollama: a second model reads the input and the canary's reply
// and answers SAFE or UNSAFE. It replaces the regex analyzer when configured. Any failure or
// abstention is a degraded, unmeasured result; it never throws for backend trouble and never
// calls the backend when the canary itself failed.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { resolveClientEndpoint } from "../canary/endpoint.js";
import type { FetchLike } from "../canary/http-call.js";
import { resolveChatSettings } from "../canary/options.js";
import { postOllamaChat } from "../canary/ollama-chat.js";
import { ollamaModelInstalled } from "../canary/ollama-inventory.js";
import { DEFAULT_OLLAMA_URL } from "../canary/ollama-probe.js";
import { JUDGE_SYSTEM_PROMPT, judgeUserContent } from "./judge-prompt.js";
import { canaryNotExercised, fromJudgeChat, judgeFailed } from "./judge-verdict.js";
import type { ChatEndpoint } from "../canary/chat-exchange.js";

export const DEFAULT_OLLAMA_JUDGE_MODEL = "qwen3:4b";

export interface OllamaJudgeOptions {
  readonly model?: string;
  readonly ollamaUrl?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  readonly fetch?: FetchLike;
}

/**
 * An LLM judge on Ollama: a second model reads the input and the canary's reply and answers SAFE or
 * UNSAFE; any other answer is an abstention.
 */
export class OllamaJudge implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "ollama" as const;
  readonly model: string;
  readonly timeoutSeconds: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
  readonly endpointOrigin: string;
  /** Where and how chat requests go; built once, the base URL (which may hold secrets) stays private. */
  readonly #endpoint: ChatEndpoint;

  constructor(options: OllamaJudgeOptions = {}) {
    // An empty judge model is refused: it would switch the judge on while the regex analyzer ran.
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } =
      resolveChatSettings(options, { model: DEFAULT_OLLAMA_JUDGE_MODEL, timeoutSeconds: 15, maxTokens: 512 }, "judge"));
    const { baseUrl, endpointOrigin } = resolveClientEndpoint(options.ollamaUrl ?? DEFAULT_OLLAMA_URL, "judge ollamaUrl");
    this.endpointOrigin = endpointOrigin;
    this.#endpoint = Object.freeze({ fetch: options.fetch ?? globalThis.fetch, baseUrl, origin: endpointOrigin, timeoutSeconds: this.timeoutSeconds });
  }

  /** Judges one canary reply; a failure or abstention is a degraded, unmeasured result, never a pass. */
  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const chat = await postOllamaChat(this.#endpoint, {
        model: this.model,
        systemPrompt: JUDGE_SYSTEM_PROMPT,
        userContent: judgeUserContent(userInput, canary.response),
        maxTokens: this.maxTokens,
        temperature: this.temperature,
        seed: this.seed,
        numCtx: null,
      });
      return fromJudgeChat(chat, canary.response);
    } catch {
      return judgeFailed();
    }
  }

  /** Whether the judge backend answers and has the model; never throws. */
  async isAvailable(): Promise<boolean> {
    return ollamaModelInstalled(this.#endpoint.fetch, this.#endpoint.baseUrl, this.model);
  }

  /** The judge's configuration without secrets. */
  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpointOrigin: this.endpointOrigin };
  }
}
