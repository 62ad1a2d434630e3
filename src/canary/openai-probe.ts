// The canary probe against an OpenAI-compatible API (pipeline.md §6). Same contract as the Ollama
// probe: test() never throws for backend trouble and every failure is a CanaryResult with a code.
// The API key lives in a private field: it is sent only as a Bearer header and can never appear
// in an error, in String()/JSON output of the probe, or in a log.
import { ConfigError, UsageError } from "../errors.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "./system-prompt.js";
import type { CanaryProbe, CanaryResult } from "./types.js";
import { resolveClientEndpoint, serviceRequestTarget } from "./endpoint.js";
import { errorClassName, httpCall, type FetchLike } from "./http-call.js";
import { startCanaryResult } from "./result.js";
import { checkApiKey, checkSystemPrompt, resolveChatSettings } from "./options.js";
import { openAIHeaders, openAISuccessMetadata, postOpenAIChat } from "./openai-chat.js";
import type { ChatEndpoint } from "./chat-exchange.js";

export const DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1";
export const DEFAULT_OPENAI_MODEL = "gpt-4o-mini";
const AVAILABILITY_TIMEOUT_MS = 5_000;
const MAX_MODELS_BYTES = 4 * 1024 * 1024;

export interface OpenAICanaryProbeOptions {
  readonly model?: string;
  readonly baseUrl?: string;
  /** Sent as `Authorization: Bearer <key>` only when non-empty. */
  readonly apiKey?: string;
  readonly systemPrompt?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  readonly fetch?: FetchLike;
  /** Monotonic clock in milliseconds, for latency. */
  readonly now?: () => number;
}

/**
 * Reads an API key from the environment variable `name`. Unset or empty is a configuration error
 * whose message names the variable and never a value.
 */
export function apiKeyFromEnv(name: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) {
    throw new UsageError("API key environment variable name must be a valid variable name");
  }
  const value = env[name];
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigError(`environment variable ${name} is not set or empty; it must hold the API key`);
  }
  return value;
}

/** Bearer authorization from the key, else from userinfo in the base URL, else none. */
export class OpenAICanaryProbe implements CanaryProbe {
  readonly provider = "openai" as const;
  readonly model: string;
  readonly systemPrompt: string;
  readonly timeoutSeconds: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly seed: number | null;
  readonly endpointOrigin: string;
  readonly #apiKey: string;
  /** Where and how chat requests go; built once, the base URL (which may hold secrets) stays private. */
  readonly #endpoint: ChatEndpoint;
  readonly #now: () => number;

  constructor(options: OpenAICanaryProbeOptions = {}) {
    ({ model: this.model, timeoutSeconds: this.timeoutSeconds, maxTokens: this.maxTokens, temperature: this.temperature, seed: this.seed } =
      resolveChatSettings(options, { model: DEFAULT_OPENAI_MODEL, timeoutSeconds: 10, maxTokens: 256 }));
    this.systemPrompt = checkSystemPrompt(options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT);
    this.#apiKey = checkApiKey(options.apiKey);
    const { baseUrl, endpointOrigin } = resolveClientEndpoint(options.baseUrl ?? DEFAULT_OPENAI_BASE_URL, "baseUrl");
    this.endpointOrigin = endpointOrigin;
    this.#endpoint = Object.freeze({ fetch: options.fetch ?? globalThis.fetch, baseUrl, origin: endpointOrigin, timeoutSeconds: this.timeoutSeconds });
    this.#now = options.now ?? (() => performance.now());
  }

  async test(userInput: string): Promise<CanaryResult> {
    const result = startCanaryResult(this.model, this.#now);
    try {
      const chat = await postOpenAIChat(this.#endpoint, this.#apiKey, {
        model: this.model,
        systemPrompt: this.systemPrompt,
        userContent: userInput,
        maxTokens: this.maxTokens,
        temperature: this.temperature,
        seed: this.seed,
      });
      if (chat === null) return result.failure("probe_exception", "Canary probe failed (UsageError)");
      if (!chat.ok) return result.failure(chat.failureCode, chat.error, chat.metadata);
      return result.success(chat.content, openAISuccessMetadata(chat.data));
    } catch (error) {
      return result.failure("probe_exception", `Canary probe failed (${errorClassName(error)})`, {});
    }
  }

  /** True only when `GET <base>/models` answers 200 within 5 s. */
  async isAvailable(): Promise<boolean> {
    return openAIModelsReachable(this.#endpoint.fetch, this.#endpoint.baseUrl, this.#apiKey);
  }

  toJSON(): Record<string, unknown> {
    return { provider: this.provider, model: this.model, endpointOrigin: this.endpointOrigin };
  }

  toString(): string {
    return `OpenAICanaryProbe(${this.model} at ${this.endpointOrigin})`;
  }
}

export async function openAIModelsReachable(fetchFn: FetchLike, baseUrl: string, apiKey: string): Promise<boolean> {
  try {
    const target = serviceRequestTarget(baseUrl, "/models");
    if (!target) return false;
    const outcome = await httpCall(fetchFn, target.url, {
      method: "GET",
      headers: openAIHeaders(apiKey, target.authorization),
      timeoutMs: AVAILABILITY_TIMEOUT_MS,
      maxBodyBytes: MAX_MODELS_BYTES,
    });
    return outcome.kind === "response" && outcome.status === 200;
  } catch {
    return false;
  }
}
