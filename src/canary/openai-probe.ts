// The canary probe against an OpenAI-compatible API. Same contract as the Ollama
// probe: test() never throws for backend trouble and every failure is a CanaryResult with a code.
// The API key lives in a private field: it is sent only as a Bearer header and can never appear
// in an error, in String()/JSON output of the probe, or in a log. Before its first check the probe
// makes one warm-up call with a known calibration prompt (run-context.ts). The warm-up also asks
// the server about itself (openai-identity.ts): where it offers vLLM's `POST /tokenize`, each
// prompt is counted exactly before it is sent, a prompt that cannot fit `max_model_len` is not
// sent (`context_too_long`), and a reply reporting fewer prompt tokens than the count is cut.
// Without that count a server's window is only its word (an Ollama /v1 endpoint, or a proxy, cuts
// over-long prompts silently): a reply passes only when its prompt fits at one token per byte
// (`provenByByteBound`), else it is `context_unverified`. A reply without usage is
// `context_unverified` on either path: nothing shows how much of the prompt was read.
import { ConfigError, UsageError } from "../core/errors.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import type { CanaryProbe, CanaryResult } from "./types.js";
import { ChatClient, DEFAULT_OPENAI_MODEL, OpenAIChatBackend, type ChatRole } from "./chat-backend.js";
import { errorClassName, type FetchLike } from "./http-call.js";
import { startCanaryResult } from "./result.js";
import { checkSystemPrompt } from "./options.js";
import { openAISuccessMetadata } from "./openai-chat.js";
import { isPlainObject } from "../core/guards.js";
import { postChat, readChatObject, type ChatEndpoint } from "./chat-exchange.js";
import { openAIChatBody } from "./openai-chat.js";
import { CALIBRATION_PROBE_TEXT, calibrate, minimumPromptTokens, provenByByteBound } from "./run-context.js";
import type { CanaryFailureCode } from "./types.js";
import type { OpenAIServerIdentity } from "./openai-identity.js";
import { finiteNonNegative } from "./options.js";
import { replyModelMatches, replyModelMismatchText } from "./reply-model.js";
import { brandCanary, type ProbeIdentity } from "./identity.js";

export { DEFAULT_OPENAI_BASE_URL, DEFAULT_OPENAI_MODEL, openAIModelsReachable } from "./chat-backend.js";
const PROBE_ROLE: ChatRole = Object.freeze({ defaults: { model: DEFAULT_OPENAI_MODEL, timeoutSeconds: 10, maxTokens: 256 }, name: "", urlOption: "baseUrl" });

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
  /** Check the `model` of every reply against `model` (see OllamaCanaryProbeOptions). */
  readonly checkReplyModel?: boolean;
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

/**
 * The warm-up's calibration and what the server said about itself, or the failure that kept
 * the warm-up from answering. `server` is null when `GET /models` gave no identity (an endpoint
 * that does not list models, or not this one); `serverProblem` then says why.
 */
export type CalibrationOutcome =
  | {
      readonly ok: true;
      readonly bytesPerToken: number | null;
      readonly server: OpenAIServerIdentity | null;
      readonly serverProblem: string | null;
    }
  | { readonly ok: false; readonly failureCode: CanaryFailureCode; readonly error: string };

/** Bearer authorization from the key, else from userinfo in the base URL, else none. */
export class OpenAICanaryProbe extends ChatClient<OpenAIChatBackend> implements CanaryProbe {
  readonly provider = "openai" as const;
  readonly systemPrompt: string;
  /** Whether every reply's `model` must name this probe's model. */
  readonly checkReplyModel: boolean;
  /** Where and how requests go; the base URL (which may hold secrets) stays private. */
  readonly #endpoint: ChatEndpoint;
  readonly #now: () => number;
  /** The warm-up's bytes per token; kept once answered, retried after a transport failure. */
  #calibration: Promise<CalibrationOutcome> | null = null;
  #settled: CalibrationOutcome | null = null;

  constructor(options: OpenAICanaryProbeOptions = {}) {
    // The system prompt is checked after the generation settings and before the key and URL.
    const own: { systemPrompt?: string } = {};
    super(
      new OpenAIChatBackend(options, {
        ...PROBE_ROLE,
        check: () => {
          own.systemPrompt = checkSystemPrompt(options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT);
        },
      }),
    );
    this.systemPrompt = own.systemPrompt as string;
    this.checkReplyModel = options.checkReplyModel === true;
    this.#endpoint = this.backend.endpoint;
    this.#now = options.now ?? (() => performance.now());
    brandCanary(this, "openai", new.target === OpenAICanaryProbe);
  }

  /** What of this probe can change a verdict (canary/identity.ts): model, prompt and sampling. */
  identity(): ProbeIdentity {
    const { provider, model, systemPrompt, temperature, seed, maxTokens } = this;
    return { provider, model, systemPrompt, numCtx: null, temperature, seed, maxTokens };
  }

  /** Sends `userInput` to the canary; never throws for backend trouble, every failure is a result with a failure code. */
  async test(userInput: string): Promise<CanaryResult> {
    const result = startCanaryResult(this.model, this.#now);
    try {
      const calibration = await this.calibration();
      if (!calibration.ok) return result.failure(calibration.failureCode, calibration.error);
      const server = calibration.server;
      const exact = server?.tokenize === true ? await this.#exactPromptTokens(userInput) : null;
      if (exact !== null && server?.maxModelLen != null && exact + this.maxTokens > server.maxModelLen) {
        // Known not to fit: the server would refuse it, so it is not sent.
        return result.failure(
          "context_too_long",
          `the prompt needs ${exact} tokens (POST /tokenize) and ${this.maxTokens} for the reply, more than the max_model_len ${server.maxModelLen} of the server at ${this.endpointOrigin}`,
          { prompt_count: exact },
        );
      }
      const chat = await this.backend.chat({ systemPrompt: this.systemPrompt, userContent: userInput, maxTokens: this.maxTokens });
      if (chat === null) return result.failure("probe_exception", "Canary probe failed (UsageError)");
      if (!chat.ok) return result.failure(chat.failureCode, chat.error, chat.metadata, chat.httpStatus);
      const metadata = openAISuccessMetadata(chat.data);
      if (this.checkReplyModel && !replyModelMatches("openai", chat.data["model"], this.model)) {
        return result.failure("invalid_response", replyModelMismatchText(this.model), metadata);
      }
      const promptTokens = metadata["prompt_tokens"];
      if (typeof promptTokens !== "number") {
        // Without usage nothing shows how much of the prompt the model read: a server that cut
        // it would answer exactly like one that did not.
        return result.failure(
          "context_unverified",
          `Canary context cannot be confirmed: the server at ${this.endpointOrigin} reported no usage.prompt_tokens, so the reply cannot show that the whole prompt was read`,
          exact === null ? metadata : { ...metadata, prompt_count: exact },
        );
      }
      if (exact !== null) {
        // The exact count is what the server's own tokenizer makes of this prompt: a reply that
        // reports fewer prompt tokens was computed on less than the whole prompt.
        if (promptTokens < exact) {
          return result.failure(
            "context_truncated",
            `Canary prompt was truncated by the backend (prompt_tokens ${promptTokens} is below the ${exact} tokens POST /tokenize counted)`,
            { ...metadata, prompt_count: exact },
          );
        }
        return result.success(chat.content, { ...metadata, prompt_count: exact, context_check: "tokenize" });
      }
      if (calibration.bytesPerToken !== null) {
        // Not a proof (the margin is a guess at the densest prose), only a cheap catch of a cut
        // that leaves a prompt clearly too few tokens: it can degrade a reply, never pass one.
        const minimum = minimumPromptTokens(this.systemPrompt, userInput, calibration.bytesPerToken);
        if (promptTokens < minimum) {
          return result.failure(
            "context_truncated",
            `Canary prompt was truncated by the backend (prompt_tokens ${promptTokens} is below the ${minimum} tokens the whole prompt needs)`,
            metadata,
          );
        }
      }
      // No exact count: max_model_len is only the server's word, and a server (or a proxy in
      // front of it) may keep the tail of a prompt and report usage for what it kept. Only a
      // prompt that fits at one token per byte is vouched for (run-context.ts).
      const proof = provenByByteBound(this.systemPrompt, userInput, this.maxTokens, server?.maxModelLen ?? null);
      if (!proof.fits) {
        return result.failure(
          "context_unverified",
          `Canary context cannot be confirmed: the server at ${this.endpointOrigin} offers no POST /tokenize, and this prompt with its reply budget may need up to ${proof.needed} tokens at one token per byte, ` +
            `more than the ${proof.window} that can be vouched for without an exact count (serve the canary with vLLM, whose POST /tokenize counts each prompt exactly)`,
          metadata,
        );
      }
      return result.success(chat.content, { ...metadata, context_check: "one_token_per_byte" });
    } catch (error) {
      return result.failure("probe_exception", `Canary probe failed (${errorClassName(error)})`, {});
    }
  }

  /** The server's exact count of this prompt, or null when `/tokenize` gave none this time. */
  async #exactPromptTokens(userInput: string): Promise<number | null> {
    const count = await this.backend.tokenize({ systemPrompt: this.systemPrompt, userContent: userInput });
    return typeof count === "number" ? count : null;
  }

  /** What the server said about itself once the warm-up has answered, else null; never makes a request. */
  get knownServer(): OpenAIServerIdentity | null {
    return this.#settled?.ok === true ? this.#settled.server : null;
  }

  /**
   * The warm-up: one completion of the calibration prompt with one output token; its
   * usage.prompt_tokens gives the backend's bytes per token (null when it reports no usage).
   * Concurrent callers share it; a call that could not reach the backend is retried next time.
   */
  calibration(): Promise<CalibrationOutcome> {
    if (this.#calibration === null) {
      const attempt = this.#warmUp();
      this.#calibration = attempt;
      void attempt.then((outcome) => {
        if (this.#calibration !== attempt) return;
        if (outcome.ok) this.#settled = outcome;
        else this.#calibration = null;
      });
    }
    return this.#calibration;
  }

  async #warmUp(): Promise<CalibrationOutcome> {
    try {
      const body = openAIChatBody({
        model: this.model,
        systemPrompt: this.systemPrompt,
        userContent: CALIBRATION_PROBE_TEXT,
        maxTokens: 1,
        temperature: this.temperature,
        seed: this.seed,
      });
      const [outcome, identity] = await Promise.all([
        postChat(this.#endpoint, "/chat/completions", body, (authorization) => this.backend.headers(authorization)),
        this.backend.identify(),
      ]);
      if (outcome === null) return { ok: false, failureCode: "probe_exception", error: "Canary probe failed (UsageError)" };
      const read = readChatObject(outcome, { service: "API", origin: this.#endpoint.origin, timeoutSeconds: this.timeoutSeconds });
      if (!read.ok) return { ok: false, failureCode: read.failureCode, error: read.error };
      const usage = isPlainObject(read.data["usage"]) ? read.data["usage"] : {};
      const fingerprint = read.data["system_fingerprint"];
      const server = identity.ok
        ? Object.freeze({
            ...identity.identity,
            systemFingerprint: typeof fingerprint === "string" && /^[\x21-\x7e]{1,200}$/.test(fingerprint) ? fingerprint : null,
            warmUpPromptTokens: finiteNonNegative(usage["prompt_tokens"]),
          })
        : null;
      return {
        ok: true,
        bytesPerToken: calibrate(this.systemPrompt, usage["prompt_tokens"]),
        server,
        serverProblem: identity.ok ? null : identity.message,
      };
    } catch (error) {
      return { ok: false, failureCode: "probe_exception", error: `Canary probe failed (${errorClassName(error)})` };
    }
  }

  override toString(): string {
    return `OpenAICanaryProbe(${this.model} at ${this.endpointOrigin})`;
  }
}
