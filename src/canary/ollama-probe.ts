// The canary probe against a local Ollama: sends untrusted text, unmodified, to a
// small tool-less model under a known system prompt and returns its reply for analysis. test()
// never throws for backend trouble; every failure is a CanaryResult with success=false and a
// failure code, so a canary that did not run cannot look like a pass. One deadline covers each
// whole call, the reply body is capped, and a reply that may have been truncated by the backend
// is a failure (Ollama truncates an over-long prompt silently and still answers 200). Before its
// first check the probe proves, once per instance, that the
// backend really loaded the context it was sent and calibrates a per-reply lower bound on prompt
// tokens (run-context.ts); a check whose reply fails either proof is `context_truncated`.
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../documents/system-prompt.js";
import type { CanaryFailureCode, CanaryMetadata, CanaryProbe, CanaryResult } from "./types.js";
import { ChatClient, OllamaChatBackend, type ChatRole } from "./chat-backend.js";
import { serviceRequestTarget } from "./endpoint.js";
import { errorClassName, httpCall, type FetchLike } from "./http-call.js";
import { startCanaryResult } from "./result.js";
import { checkNumCtx, checkSystemPrompt } from "./options.js";
import { isPlainObject } from "../core/guards.js";
import { parseJsonBody, postChat, readChatObject, type ChatEndpoint } from "./chat-exchange.js";
import { ollamaChatBody, ollamaModelMissing, ollamaSuccessMetadata } from "./ollama-chat.js";
import { fetchOllamaInventory, inventoryDigest } from "./ollama-inventory.js";
import {
  CALIBRATION_PROBE_TEXT,
  UNVERIFIED_TEXT,
  calibrate,
  minimumPromptTokens,
  readLoadedContext,
  UNVERIFIED_SAFE_CONTEXT,
  worstCasePromptTokens,
  tooSmallMessage,
  type RunContext,
} from "./run-context.js";

import { DEFAULT_CANARY_MODEL } from "./defaults.js";
import { brandCanary, type ProbeIdentity } from "./identity.js";
import { replyModelMatches, replyModelMismatchText } from "./reply-model.js";
export { DEFAULT_CANARY_MODEL, DEFAULT_OLLAMA_URL } from "./defaults.js";
const PROBE_ROLE: ChatRole = Object.freeze({ defaults: { model: DEFAULT_CANARY_MODEL, timeoutSeconds: 10, maxTokens: 256 }, name: "", urlOption: "ollamaUrl" });
/** /api/show carries the modelfile and licence text; generous, but bounded. */
const MAX_SHOW_BYTES = 8 * 1024 * 1024;
const MAX_MODEL_INFO_KEYS = 10_000;

export interface OllamaCanaryProbeOptions {
  readonly model?: string;
  readonly ollamaUrl?: string;
  readonly systemPrompt?: string;
  readonly timeoutSeconds?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
  readonly seed?: number | null;
  /** Context window sent as options.num_ctx; null/undefined leaves the backend default. */
  readonly numCtx?: number | null;
  readonly fetch?: FetchLike;
  /** Monotonic clock in milliseconds, for latency. */
  readonly now?: () => number;
  /**
   * Check the `model` of every reply against `model` (a mismatch fails the check as
   * `invalid_response`); set for the endpoints of a canary pool, where a URL may be a router.
   */
  readonly checkReplyModel?: boolean;
}

/** The run's context proof, or the transport failure that kept the warm-up from answering. */
export type RunContextOutcome =
  | { readonly ok: true; readonly value: RunContext }
  | { readonly ok: false; readonly failureCode: CanaryFailureCode; readonly error: string };

export class OllamaCanaryProbe extends ChatClient<OllamaChatBackend> implements CanaryProbe {
  readonly provider = "ollama" as const;
  readonly systemPrompt: string;
  readonly numCtx: number | null;
  /** Whether every reply's `model` must name this probe's model (see the options). */
  readonly checkReplyModel: boolean;
  /** Trained context length from the last contextLength() call; null when it failed. */
  lastContextLength: number | null = null;
  /** Where and how requests go; the base URL (which may hold secrets) stays private. */
  readonly #endpoint: ChatEndpoint;
  readonly #now: () => number;
  /** The run's warm-up and /api/ps proof; kept once conclusive, retried after a transport failure. */
  #runContext: Promise<RunContextOutcome> | null = null;
  #settledContext: RunContext | null = null;

  constructor(options: OllamaCanaryProbeOptions = {}) {
    // The probe's own settings are checked after the generation settings and before the URL.
    const own: { systemPrompt?: string; numCtx?: number | null } = {};
    // The full URL may hold userinfo or a token; the backend keeps it private and shows the origin.
    super(
      new OllamaChatBackend(options, {
        ...PROBE_ROLE,
        check: () => {
          own.systemPrompt = checkSystemPrompt(options.systemPrompt ?? DEFAULT_CANARY_SYSTEM_PROMPT);
          own.numCtx = checkNumCtx(options.numCtx);
        },
      }),
    );
    this.systemPrompt = own.systemPrompt as string;
    this.numCtx = own.numCtx ?? null;
    this.checkReplyModel = options.checkReplyModel === true;
    this.#endpoint = this.backend.endpoint;
    this.#now = options.now ?? (() => performance.now());
    brandCanary(this, "ollama", new.target === OllamaCanaryProbe);
  }

  /** What of this probe can change a verdict (canary/identity.ts): model, prompt and sampling. */
  identity(): ProbeIdentity {
    const { provider, model, systemPrompt, numCtx, temperature, seed, maxTokens } = this;
    return { provider, model, systemPrompt, numCtx, temperature, seed, maxTokens };
  }

  /** Sends `userInput` to the canary; never throws for backend trouble, every failure is a result with a failure code. */
  async test(userInput: string): Promise<CanaryResult> {
    const result = startCanaryResult(this.model, this.#now);

    try {
      const context = await this.runContext();
      if (!context.ok) return result.failure(context.failureCode, context.error);
      const loaded = context.value.loaded;
      // A backend that loaded less than it was sent would cut long prompts: nothing is sent.
      if (loaded.kind === "too_small") return result.failure("context_truncated", tooSmallMessage(loaded.contextLength, loaded.numCtx));
      const chat = await this.backend.chat({ systemPrompt: this.systemPrompt, userContent: userInput, maxTokens: this.maxTokens }, this.numCtx);
      if (chat === null) return result.failure("probe_exception", "Canary probe failed (UsageError)");
      if (!chat.ok) {
        // A backend that could not be reached may have been restarted, possibly with another
        // context cap: the proof no longer describes it, so the next check proves it again.
        if (chat.failureCode === "unavailable") this.#forgetRunContext();
        return result.failure(chat.failureCode, chat.error, chat.metadata, chat.httpStatus);
      }
      const metadata = ollamaSuccessMetadata(chat.data);
      if (this.checkReplyModel && !replyModelMatches("ollama", chat.data["model"], this.model)) {
        return result.failure("invalid_response", replyModelMismatchText(this.model), metadata);
      }
      const promptTokens = metadata["prompt_eval_count"];
      if (this.numCtx !== null && typeof promptTokens === "number" && promptTokens >= this.numCtx - this.maxTokens) {
        // Ollama drops the start of an over-long prompt and still answers 200; a reply to a
        // shortened input says nothing about the whole input, so it is not a pass.
        return result.failure(
          "context_truncated",
          `Canary prompt may have been truncated by the backend (prompt_eval_count ${promptTokens} >= num_ctx - num_predict)`,
          metadata,
        );
      }
      const cut = this.#lowerBoundFailure(userInput, promptTokens, context.value);
      if (cut !== null) return result.failure("context_truncated", cut, metadata);
      return result.success(chat.content, { ...metadata, context_check: loaded.kind === "verified" ? "api_ps" : "lower_bound" });
    } catch (error) {
      // httpCall already turns transport errors into values; this catches anything unforeseen.
      return result.failure("probe_exception", `Canary probe failed (${errorClassName(error)})`, {});
    }
  }

  /**
   * The run's context proof: on first use, one warm-up chat with a known calibration prompt (same
   * model and num_ctx as every check, one output token), then one `GET /api/ps`. Concurrent
   * callers share one attempt; a conclusive answer is kept until a check cannot reach the backend, while a
   * warm-up that could not reach the backend is retried by the next call.
   */
  runContext(): Promise<RunContextOutcome> {
    if (this.#runContext === null) {
      const attempt = this.#warmUp();
      this.#runContext = attempt;
      void attempt.then((outcome) => {
        if (outcome.ok) {
          if (this.#runContext === attempt) this.#settledContext = outcome.value;
        } else if (this.#runContext === attempt) this.#runContext = null;
      });
    }
    return this.#runContext;
  }

  #forgetRunContext(): void {
    this.#runContext = null;
    this.#settledContext = null;
  }

  /** The run's context proof once the warm-up has answered, else null; never makes a request. */
  get knownRunContext(): RunContext | null {
    return this.#settledContext;
  }

  async #warmUp(): Promise<RunContextOutcome> {
    try {
      const outcome = await postChat(
        this.#endpoint,
        "/api/chat",
        ollamaChatBody({
          model: this.model,
          systemPrompt: this.systemPrompt,
          userContent: CALIBRATION_PROBE_TEXT,
          maxTokens: 1,
          temperature: this.temperature,
          seed: this.seed,
          numCtx: this.numCtx,
        }),
        (authorization): Record<string, string> => (authorization ? { authorization } : {}),
      );
      if (outcome === null) return { ok: false, failureCode: "probe_exception", error: "Canary probe failed (UsageError)" };
      const missing = ollamaModelMissing(outcome, this.#endpoint.origin);
      if (missing !== null) return { ok: false, failureCode: missing.failureCode, error: missing.error };
      const read = readChatObject(outcome, { service: "Ollama", origin: this.#endpoint.origin, timeoutSeconds: this.timeoutSeconds });
      if (!read.ok) return { ok: false, failureCode: read.failureCode, error: read.error };
      const bytesPerToken = calibrate(this.systemPrompt, read.data["prompt_eval_count"]);
      const loaded = await readLoadedContext(this.#endpoint.fetch, this.#endpoint.baseUrl, this.model, this.numCtx, this.timeoutSeconds * 1000);
      return { ok: true, value: { loaded, bytesPerToken } };
    } catch (error) {
      return { ok: false, failureCode: "probe_exception", error: `Canary probe failed (${errorClassName(error)})` };
    }
  }

  /** Why a reply cannot count as covering the whole prompt, or null when it can. */
  #lowerBoundFailure(userInput: string, promptTokens: CanaryMetadata[string] | undefined, context: RunContext): string | null {
    const counted = typeof promptTokens === "number" && Number.isSafeInteger(promptTokens) ? promptTokens : null;
    if (counted !== null && context.bytesPerToken !== null) {
      const minimum = minimumPromptTokens(this.systemPrompt, userInput, context.bytesPerToken);
      if (counted < minimum) {
        return `Canary prompt was truncated by the backend (prompt_eval_count ${counted} is below the ${minimum} tokens the whole prompt needs)`;
      }
      if (context.loaded.kind === "verified") return null;
      // The bound cannot see a cut of text that tokenizes more finely than the calibration; only
      // a prompt too small to be cut by any default context is vouched for without /api/ps.
      const worst = worstCasePromptTokens(this.systemPrompt, userInput);
      if (worst <= UNVERIFIED_SAFE_CONTEXT) return null;
      return (
        `Canary context cannot be confirmed: ${this.#unverifiedWhy(context)}, and this prompt may need up to ${worst} tokens, ` +
        `more than the ${UNVERIFIED_SAFE_CONTEXT} the lower bound can vouch for (use an Ollama whose GET /api/ps reports context_length)`
      );
    }
    if (context.loaded.kind === "verified") return null;
    // Neither proof is available: the loaded context is unknown and the reply cannot be measured.
    return `Canary context cannot be confirmed: ${this.#unverifiedWhy(context)}, and the backend reported no usable prompt_eval_count`;
  }

  #unverifiedWhy(context: RunContext): string {
    return context.loaded.kind === "unverified" ? UNVERIFIED_TEXT[context.loaded.reason] : "the loaded context is unknown";
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), numCtx: this.numCtx };
  }

  override toString(): string {
    return `OllamaCanaryProbe(${this.model} at ${this.endpointOrigin})`;
  }

  /** Digest of the installed model from /api/tags (where Ollama gives it), or null when unknown. */
  async modelDigest(): Promise<string | null> {
    try {
      const entries = await fetchOllamaInventory(this.#endpoint.fetch, this.#endpoint.baseUrl, this.timeoutSeconds * 1000);
      return entries === null ? null : inventoryDigest(entries, this.model);
    } catch {
      return null;
    }
  }

  /**
   * The model's trained context length from one `POST /api/show`, or null. Sets
   * lastContextLength on success and resets it on any failure.
   */
  async contextLength(): Promise<number | null> {
    this.lastContextLength = null;
    try {
      const target = serviceRequestTarget(this.#endpoint.baseUrl, "/api/show");
      if (!target) return null;
      const outcome = await httpCall(this.#endpoint.fetch, target.url, {
        method: "POST",
        headers: target.authorization ? { authorization: target.authorization } : {},
        json: { model: this.model },
        timeoutMs: this.timeoutSeconds * 1000,
        maxBodyBytes: MAX_SHOW_BYTES,
      });
      if (outcome.kind !== "response" || outcome.status !== 200) return null;
      const parsed = parseJsonBody(outcome.body);
      if (!parsed.ok || !isPlainObject(parsed.value)) return null;
      const length = contextLengthFromModelInfo(parsed.value["model_info"], outcome.body);
      this.lastContextLength = length;
      return length;
    } catch {
      return null;
    }
  }
}

/**
 * `model_info["<general.architecture>.context_length"]`, else the only key ending in
 * `.context_length`. The value must be a positive safe integer: not a boolean, not a string, and
 * — when the raw body is given — written as an integer literal (`32768.0` parses to the same JS
 * number but is not an integer in the backend's own terms, so it is refused).
 */
export function contextLengthFromModelInfo(modelInfo: unknown, rawBody?: string): number | null {
  if (!isPlainObject(modelInfo)) return null;
  let key: string;
  const architecture = modelInfo["general.architecture"];
  const archKey = typeof architecture === "string" ? `${architecture}.context_length` : null;
  if (archKey !== null && Object.hasOwn(modelInfo, archKey)) {
    key = archKey;
  } else {
    const keys = Object.keys(modelInfo)
      .slice(0, MAX_MODEL_INFO_KEYS)
      .filter((k) => k.endsWith(".context_length"));
    if (keys.length !== 1) return null;
    key = keys[0] as string;
  }
  const value = modelInfo[key];
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) return null;
  if (rawBody !== undefined && !writtenAsInteger(rawBody, key)) return null;
  return value;
}

/**
 * True when `"key": <number>` occurs exactly once in the raw JSON and the number is a plain
 * integer literal. A key written with escapes, or given twice, cannot be confirmed and fails.
 */
function writtenAsInteger(rawBody: string, key: string): boolean {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const pattern = new RegExp(`"${escaped}"\\s*:\\s*(-?[0-9][0-9.eE+-]*)`, "g");
  const literals = [...rawBody.matchAll(pattern)].slice(0, 2).map((m) => m[1]);
  return literals.length === 1 && /^[1-9][0-9]*$/.test(literals[0] ?? "");
}
