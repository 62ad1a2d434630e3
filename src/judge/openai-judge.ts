// An LLM judge on an OpenAI-compatible API (pipeline.md §4, §6): same verdict rules as the Ollama
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
import { canaryNotExercised, fromLabel, judgeFailed, parseJudgeReply } from "./judge-verdict.js";

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
  readonly #baseUrl: string;
  readonly #fetch: FetchLike;

  constructor(options: OpenAIJudgeOptions = {}) {
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } =
      resolveChatSettings(options, { model: DEFAULT_OPENAI_MODEL, timeoutSeconds: 15, maxTokens: 512 }, "judge"));
    this.#apiKey = checkApiKey(options.apiKey);
    ({ baseUrl: this.#baseUrl, endpointOrigin: this.endpointOrigin } = resolveClientEndpoint(options.baseUrl ?? DEFAULT_OPENAI_BASE_URL, "judge baseUrl"));
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const chat = await postOpenAIChat({ fetch: this.#fetch, baseUrl: this.#baseUrl, origin: this.endpointOrigin, timeoutSeconds: this.timeoutSeconds }, this.#apiKey, {
        model: this.model,
        systemPrompt: JUDGE_SYSTEM_PROMPT,
        userContent: judgeUserContent(userInput, canary.response),
        maxTokens: this.maxTokens,
        temperature: this.temperature,
        seed: this.seed,
      });
      if (chat === null) return judgeFailed();
      if (!chat.ok) return judgeFailed();
      return fromLabel(parseJudgeReply(chat.content), canary.response);
    } catch {
      return judgeFailed();
    }
  }

  async isAvailable(): Promise<boolean> {
    return openAIModelsReachable(this.#fetch, this.#baseUrl, this.#apiKey);
  }

  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpointOrigin: this.endpointOrigin };
  }

  toString(): string {
    return `OpenAIJudge(${this.model} at ${this.endpointOrigin})`;
  }
}
