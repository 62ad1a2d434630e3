// An LLM judge on an OpenAI-compatible API (pipeline.md §4, §6): same verdict rules as the Ollama
// judge over the same transport as the OpenAI probe. The API key stays in a private field and is
// sent only as a Bearer header.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { UsageError } from "../errors.js";
import { endpointOrigin, serviceRequestTarget } from "../canary/endpoint.js";
import { httpCall, type FetchLike } from "../canary/http-call.js";
import { checkMaxTokens, checkModel, checkSeed, checkTemperature, checkTimeoutSeconds } from "../canary/options.js";
import { MAX_CHAT_RESPONSE_BYTES } from "../canary/ollama-chat.js";
import { interpretOpenAIChat, openAIChatBody } from "../canary/openai-chat.js";
import {
  DEFAULT_OPENAI_BASE_URL,
  DEFAULT_OPENAI_MODEL,
  openAIHeaders,
  openAIModelsReachable,
} from "../canary/openai-probe.js";
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
    this.model = checkModel(options.model ?? DEFAULT_OPENAI_MODEL, "judge model");
    this.timeoutSeconds = checkTimeoutSeconds(options.timeoutSeconds ?? 15, "judge timeoutSeconds");
    this.maxTokens = checkMaxTokens(options.maxTokens ?? 512, "judge maxTokens");
    this.temperature = checkTemperature(options.temperature ?? 0, "judge temperature");
    this.seed = checkSeed(options.seed === undefined ? 42 : options.seed, "judge seed");
    if (options.apiKey !== undefined && typeof options.apiKey !== "string") {
      throw new UsageError("apiKey must be a string");
    }
    this.#apiKey = options.apiKey ?? "";
    const url = options.baseUrl ?? DEFAULT_OPENAI_BASE_URL;
    if (typeof url !== "string" || serviceRequestTarget(url, "") === null) {
      throw new UsageError("judge baseUrl must be an http or https URL");
    }
    this.#baseUrl = url;
    this.endpointOrigin = endpointOrigin(url);
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const target = serviceRequestTarget(this.#baseUrl, "/chat/completions");
      if (!target) return judgeFailed();
      const outcome = await httpCall(this.#fetch, target.url, {
        method: "POST",
        headers: openAIHeaders(this.#apiKey, target.authorization),
        json: openAIChatBody({
          model: this.model,
          systemPrompt: JUDGE_SYSTEM_PROMPT,
          userContent: judgeUserContent(userInput, canary.response),
          maxTokens: this.maxTokens,
          temperature: this.temperature,
          seed: this.seed,
        }),
        timeoutMs: this.timeoutSeconds * 1000,
        maxBodyBytes: MAX_CHAT_RESPONSE_BYTES,
      });
      const chat = interpretOpenAIChat(outcome, { origin: this.endpointOrigin, timeoutSeconds: this.timeoutSeconds });
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
