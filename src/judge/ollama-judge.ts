// An LLM judge on Ollama (pipeline.md §4): a second model reads the input and the canary's reply
// and answers SAFE or UNSAFE. It replaces the regex analyzer when configured. Any failure or
// abstention is a degraded, unmeasured result; it never throws for backend trouble and never
// calls the backend when the canary itself failed.
import type { AnalysisResult, Analyzer } from "../analysis/types.js";
import type { CanaryResult } from "../canary/types.js";
import { resolveClientEndpoint } from "../canary/endpoint.js";
import type { FetchLike } from "../canary/http-call.js";
import { resolveChatSettings } from "../canary/options.js";
import { postOllamaChat } from "../canary/ollama-chat.js";
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
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } =
      resolveChatSettings(options, { model: DEFAULT_OLLAMA_JUDGE_MODEL, timeoutSeconds: 15, maxTokens: 512 }, "judge"));
    ({ baseUrl: this.#baseUrl, endpointOrigin: this.endpointOrigin } = resolveClientEndpoint(options.ollamaUrl ?? DEFAULT_OLLAMA_URL, "judge ollamaUrl"));
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  async analyze(userInput: string, canary: CanaryResult): Promise<AnalysisResult> {
    if (!canary.success) return canaryNotExercised();
    try {
      const chat = await postOllamaChat({ fetch: this.#fetch, baseUrl: this.#baseUrl, origin: this.endpointOrigin, timeoutSeconds: this.timeoutSeconds }, {
        model: this.model,
        systemPrompt: JUDGE_SYSTEM_PROMPT,
        userContent: judgeUserContent(userInput, canary.response),
        maxTokens: this.maxTokens,
        temperature: this.temperature,
        seed: this.seed,
        numCtx: null,
      });
      if (chat === null) return judgeFailed();
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
