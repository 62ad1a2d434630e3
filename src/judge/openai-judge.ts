// An LLM judge on an OpenAI-compatible API: same verdict rules as the Ollama
// judge over the same transport as the OpenAI probe. The API key stays in a private field and is
// sent only as a Bearer header.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { resolveClientEndpoint } from "../canary/endpoint.js";
import type { FetchLike } from "../canary/http-call.js";
import { checkApiKey, resolveChatSettings } from "../canary/options.js";
import { postOpenAIChat } from "../canary/openai-chat.js";
import { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, openAIModelsReachable } from "../canary/openai-probe.js";
import { JUDGE_SYSTEM_PROMPT, judgeUserContent } from "./judge-prompt.js";
import { canaryNotExercised, fromJudgeChat, judgeFailed } from "./judge-verdict.js";
import type { ChatEndpoint } from "../canary/chat-exchange.js";

export interface OpenAIJudgeOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKey?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  readonly fetch?: FetchLike;
}

/** An LLM judge on an OpenAI-compatible API: same verdict rules as OllamaJudge. */
export class OpenAIJudge implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "openai" as const;
  readonly model: string;
  readonly timeoutSeconds: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
  readonly endpointOrigin: string;
  readonly #apiKey: string;
  /** Where and how chat requests go; built once, the base URL (which may hold secrets) stays private. */
  readonly #endpoint: ChatEndpoint;

  constructor(options: OpenAIJudgeOptions = {}) {
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } =
      resolveChatSettings(options, { model: DEFAULT_OPENAI_MODEL, timeoutSeconds: 15, maxTokens: 512 }, "judge"));
    this.#apiKey = checkApiKey(options.apiKey);
    const { baseUrl, endpointOrigin } = resolveClientEndpoint(options.baseUrl ?? DEFAULT_OPENAI_BASE_URL, "judge baseUrl");
    this.endpointOrigin = endpointOrigin;
    this.#endpoint = Object.freeze({ fetch: options.fetch ?? globalThis.fetch, baseUrl, origin: endpointOrigin, timeoutSeconds: this.timeoutSeconds });
  }

  /** Judges one canary reply; a failure or abstention is a degraded, unmeasured result, never a pass. */
  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const chat = await postOpenAIChat(this.#endpoint, this.#apiKey, {
        model: this.model,
        systemPrompt: JUDGE_SYSTEM_PROMPT,
        userContent: judgeUserContent(userInput, canary.response),
        maxTokens: this.maxTokens,
        temperature: this.temperature,
        seed: this.seed,
      });
      return fromJudgeChat(chat, canary.response);
    } catch {
      return judgeFailed();
    }
  }

  /** Whether the judge backend answers; never throws. */
  async isAvailable(): Promise<boolean> {
    return openAIModelsReachable(this.#endpoint.fetch, this.#endpoint.baseUrl, this.#apiKey);
  }

  /** The judge's configuration without secrets (never the API key). */
  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpointOrigin: this.endpointOrigin };
  }

  toString(): string {
    return `OpenAIJudge(${this.model} at ${this.endpointOrigin})`;
  }
}
