// An LLM judge on Ollama (pipeline.md §4): a second model reads the input and the canary's reply
// and answers SAFE or UNSAFE. It replaces the regex analyzer when configured. Any failure or
// abstention is a degraded, unmeasured result; it never throws for backend trouble and never
// calls the backend when the canary itself failed.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { UsageError } from "../errors.js";
import { endpointOrigin, serviceRequestTarget } from "../canary/endpoint.js";
import { httpCall, type FetchLike } from "../canary/http-call.js";
import { checkMaxTokens, checkModel, checkSeed, checkTemperature, checkTimeoutSeconds } from "../canary/options.js";
import { MAX_CHAT_RESPONSE_BYTES, interpretOllamaChat, ollamaChatBody } from "../canary/ollama-chat.js";
import { fetchOllamaInventory, inventoryHasModel } from "../canary/ollama-inventory.js";
import { DEFAULT_OLLAMA_URL } from "../canary/ollama-probe.js";
import { JUDGE_SYSTEM_PROMPT, judgeUserContent } from "./judge-prompt.js";
import { canaryNotExercised, fromLabel, judgeFailed, parseJudgeReply } from "./judge-verdict.js";

export const DEFAULT_OLLAMA_JUDGE_MODEL = "qwen3:4b";
const AVAILABILITY_TIMEOUT_MS = 3_000;

export interface OllamaJudgeOptions {
  readonly model?: string;
  readonly ollamaUrl?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  readonly fetch?: FetchLike;
}

export class OllamaJudge implements Analyzer {
  readonly method = "llm_judge" as const;
  readonly provider = "ollama" as const;
  readonly model: string;
  readonly timeoutSeconds: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
  readonly endpointOrigin: string;
  readonly #baseUrl: string;
  readonly #fetch: FetchLike;

  constructor(options: OllamaJudgeOptions = {}) {
    // An empty judge model used to switch the judge on while the regex analyzer ran (weak point 12).
    this.model = checkModel(options.model ?? DEFAULT_OLLAMA_JUDGE_MODEL, "judge model");
    this.timeoutSeconds = checkTimeoutSeconds(options.timeoutSeconds ?? 15, "judge timeoutSeconds");
    this.maxTokens = checkMaxTokens(options.maxTokens ?? 512, "judge maxTokens");
    this.temperature = checkTemperature(options.temperature ?? 0, "judge temperature");
    this.seed = checkSeed(options.seed === undefined ? 42 : options.seed, "judge seed");
    const url = options.ollamaUrl ?? DEFAULT_OLLAMA_URL;
    if (typeof url !== "string" || serviceRequestTarget(url, "") === null) {
      throw new UsageError("judge ollamaUrl must be an http or https URL");
    }
    this.#baseUrl = url;
    this.endpointOrigin = endpointOrigin(url);
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const target = serviceRequestTarget(this.#baseUrl, "/api/chat");
      if (!target) return judgeFailed();
      const outcome = await httpCall(this.#fetch, target.url, {
        method: "POST",
        headers: target.authorization ? { authorization: target.authorization } : {},
        json: ollamaChatBody({
          model: this.model,
          systemPrompt: JUDGE_SYSTEM_PROMPT,
          userContent: judgeUserContent(userInput, canary.response),
          maxTokens: this.maxTokens,
          temperature: this.temperature,
          seed: this.seed,
          numCtx: null,
        }),
        timeoutMs: this.timeoutSeconds * 1000,
        maxBodyBytes: MAX_CHAT_RESPONSE_BYTES,
      });
      const chat = interpretOllamaChat(outcome, { origin: this.endpointOrigin, timeoutSeconds: this.timeoutSeconds });
      if (!chat.ok) return judgeFailed();
      return fromLabel(parseJudgeReply(chat.content), canary.response);
    } catch {
      return judgeFailed();
    }
  }

  async isAvailable(): Promise<boolean> {
    try {
      const entries = await fetchOllamaInventory(this.#fetch, this.#baseUrl, AVAILABILITY_TIMEOUT_MS);
      return entries !== null && inventoryHasModel(entries, this.model);
    } catch {
      return false;
    }
  }

  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpointOrigin: this.endpointOrigin };
  }
}
