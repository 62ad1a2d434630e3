// The Ollama part of the probe skeleton (canary-client.ts): the `/api/chat` request with one num_ctx for the run, the
// reply's timings and counts, and the context proof. Ollama cuts an over-long prompt silently and still answers 200,
// so the warm-up proves once per instance that the backend loaded the context it was sent (`GET /api/ps`) and
// calibrates a lower bound on prompt tokens (run-context.ts); a reply failing either proof is `context_truncated`.
// Also here: the model's digest (/api/tags) and trained context length (/api/show) that the manifest records.
import type { CanaryMetadata } from "./types.js";
import { OllamaChatBackend } from "./chat-backend.js";
import type { HttpCallOutcome } from "./http-call.js";
import { checkNumCtx } from "./options.js";
import { isPlainObject } from "../core/guards.js";
import { escapeRegExp } from "../core/regexp-source.js";
import { failed, ollamaModelMissing, requestJson, type ChatFailure, type ChatTurn } from "./chat-exchange.js";
import {
  UNVERIFIED_TEXT,
  calibrate,
  ollamaModelDigest,
  belowLowerBound,
  readLoadedContext,
  UNVERIFIED_SAFE_CONTEXT,
  worstCasePromptTokens,
  tooSmallMessage,
  type RunContext,
} from "./run-context.js";
import { CanaryClient, probeRole, type CanaryClientOptions, type ReplyProof, type WarmUpFailure } from "./canary-client.js";
import { DEFAULT_CANARY_MODEL } from "./defaults.js";

import { brandCanary, type ProbeIdentity } from "./identity.js";
/** /api/show carries the modelfile and licence text; generous, but bounded. */
const MAX_SHOW_BYTES = 8 * 1024 * 1024;
const MAX_MODEL_INFO_KEYS = 10_000;

export interface OllamaCanaryProbeOptions extends CanaryClientOptions {
  readonly ollamaUrl?: string;
  /** Context window sent as options.num_ctx; null/undefined leaves the backend default. */
  readonly numCtx?: number | null;
}

/** The run's context proof, or the transport failure that kept the warm-up from answering. */
export type RunContextOutcome = { readonly ok: true; readonly value: RunContext } | WarmUpFailure;

/** The canary probe on an Ollama server (see the header). */
export class OllamaCanaryProbe extends CanaryClient<OllamaChatBackend, Extract<RunContextOutcome, { ok: true }>, null> {
  readonly provider = "ollama" as const;
  readonly numCtx: number | null;
  /** Trained context length from the last contextLength() call; null when it failed. */
  lastContextLength: number | null = null;

  constructor(options: OllamaCanaryProbeOptions = {}) {
    const own: { numCtx?: number | null } = {};
    super(
      options,
      (check) => new OllamaChatBackend(options, { ...probeRole(DEFAULT_CANARY_MODEL, "ollamaUrl"), check }),
      () => {
        own.numCtx = checkNumCtx(options.numCtx);
      },
    );
    this.numCtx = own.numCtx ?? null;
    brandCanary(this, "ollama", new.target === OllamaCanaryProbe);
  }

  /** What of this probe can change a verdict (canary/identity.ts): model, prompt, sampling and num_ctx. */
  override identity(): ProbeIdentity {
    return { ...super.identity(), numCtx: this.numCtx };
  }

  protected override post(turn: ChatTurn): Promise<HttpCallOutcome | null> {
    return this.backend.post(turn, this.numCtx);
  }

  /** The run's context proof: the warm-up chat (same model and num_ctx as every check), then `GET /api/ps`; kept until a check cannot reach the backend. */
  runContext(): Promise<RunContextOutcome> {
    return this.warmedUp();
  }

  /** The run's context proof once the warm-up has answered, else null; never makes a request. */
  get knownRunContext(): RunContext | null {
    return this.settledWarmUp?.value ?? null;
  }

  protected async warmUp(): Promise<RunContextOutcome> {
    const read = await this.calibrationReply((outcome) => ollamaModelMissing(outcome, this.endpointOrigin));
    if (!read.ok) return read;
    const bytesPerToken = calibrate(this.systemPrompt, read.data["prompt_eval_count"]);
    const { fetch, baseUrl } = this.backend.endpoint;
    const loaded = await readLoadedContext(fetch, baseUrl, this.model, this.numCtx, this.timeoutSeconds * 1000);
    return { ok: true, value: { loaded, bytesPerToken } };
  }

  /** A backend that could not be reached may have been restarted, possibly with another context cap: prove it again. */
  protected override onUnreachable(): void {
    this.forgetWarmUp();
  }

  protected async beforeChat(_userInput: string, warm: Extract<RunContextOutcome, { ok: true }>): Promise<ChatFailure | null> {
    const loaded = warm.value.loaded;
    // A backend that loaded less than it was sent would cut long prompts: nothing is sent.
    return loaded.kind === "too_small" ? failed("context_truncated", tooSmallMessage(loaded.contextLength, loaded.numCtx)) : null;
  }

  protected proveReply(userInput: string, metadata: CanaryMetadata, warm: Extract<RunContextOutcome, { ok: true }>): ReplyProof {
    const promptTokens = metadata["prompt_eval_count"];
    if (this.numCtx !== null && typeof promptTokens === "number" && promptTokens >= this.numCtx - this.maxTokens) {
      // Ollama drops the start of an over-long prompt and still answers 200: a reply to a shortened input is not a pass.
      const why = `Canary prompt may have been truncated by the backend (prompt_eval_count ${promptTokens} >= num_ctx - num_predict)`;
      return failed("context_truncated", why, metadata);
    }
    const context = warm.value;
    const cut = this.#lowerBoundFailure(userInput, promptTokens, context);
    if (cut !== null) return failed("context_truncated", cut, metadata);
    return { ok: true, metadata: { ...metadata, context_check: context.loaded.kind === "verified" ? "api_ps" : "lower_bound" } };
  }

  /** Why a reply cannot count as covering the whole prompt, or null when it can. */
  #lowerBoundFailure(userInput: string, promptTokens: CanaryMetadata[string] | undefined, context: RunContext): string | null {
    const counted = typeof promptTokens === "number" && Number.isSafeInteger(promptTokens) ? promptTokens : null;
    const measured = counted !== null && context.bytesPerToken !== null;
    const cut = measured ? belowLowerBound("prompt_eval_count", counted, this.systemPrompt, userInput, context.bytesPerToken) : null;
    if (cut !== null) return cut;
    if (context.loaded.kind === "verified") {
      // Ollama keeps half of an over-long prompt and counts what it kept, which can stay under both the num_ctx − num_predict flag and
      // the lower bound for finely tokenized text (digits, base64), and omits a cached prompt's count: only a prompt that fits num_ctx
      // even at one token per byte is vouched for (always, at the default num_ctx).
      const needed = worstCasePromptTokens(this.systemPrompt, userInput) + this.maxTokens;
      if (this.numCtx === null || needed <= this.numCtx) return null;
      return (
        `Canary context cannot be confirmed: ${measured ? "" : "the backend reported no usable prompt_eval_count, and "}this prompt with its reply budget may need up to ${needed} tokens, ` +
        `more than the num_ctx ${String(this.numCtx)}${measured ? ", and a prompt Ollama cut reports only what it kept" : ""} (leave num_ctx at its default, sized for the largest prompt)`
      );
    }
    // Neither proof is available: the loaded context is unknown and the reply cannot be measured.
    if (!measured) return `Canary context cannot be confirmed: ${this.#unverifiedWhy(context)}, and the backend reported no usable prompt_eval_count`;
    // The bound cannot see a cut of text tokenized more finely than the calibration: without /api/ps, only a prompt no default context cuts passes.
    const worst = worstCasePromptTokens(this.systemPrompt, userInput);
    if (worst <= UNVERIFIED_SAFE_CONTEXT) return null;
    return (
      `Canary context cannot be confirmed: ${this.#unverifiedWhy(context)}, and this prompt may need up to ${worst} tokens, ` +
      `more than the ${UNVERIFIED_SAFE_CONTEXT} the lower bound can vouch for (use an Ollama whose GET /api/ps reports context_length)`
    );
  }

  #unverifiedWhy(context: RunContext): string {
    return context.loaded.kind === "unverified" ? UNVERIFIED_TEXT[context.loaded.reason] : "the loaded context is unknown";
  }

  override toJSON(): Record<string, unknown> {
    return { ...super.toJSON(), numCtx: this.numCtx };
  }

  /** Digest of the installed model from /api/tags (where Ollama gives it), or null when unknown. */
  modelDigest(): Promise<string | null> {
    return ollamaModelDigest(this.backend.endpoint.fetch, this.backend.endpoint.baseUrl, this.model, this.timeoutSeconds * 1000);
  }

  /** The model's trained context length from `POST /api/show`, or null; also kept in lastContextLength. */
  async contextLength(): Promise<number | null> {
    this.lastContextLength = null;
    const { fetch, baseUrl } = this.backend.endpoint;
    const json = { model: this.model };
    const { outcome, object } = await requestJson(fetch, baseUrl, "/api/show", { json, timeoutMs: this.timeoutSeconds * 1000, maxBodyBytes: MAX_SHOW_BYTES });
    if (object === null || outcome?.kind !== "response") return null;
    this.lastContextLength = contextLengthFromModelInfo(object["model_info"], outcome.body);
    return this.lastContextLength;
  }
}

/**
 * `model_info["<general.architecture>.context_length"]`, else the only `.context_length` key, when a
 * positive safe integer written in the raw body as an integer literal: `32768.0` parses to the
 * same number but is not an integer in the backend's terms, so it is refused.
 */
function contextLengthFromModelInfo(modelInfo: unknown, rawBody: string): number | null {
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
  if (!writtenAsInteger(rawBody, key)) return null;
  return value;
}

/** True when `"key": <number>` occurs once in the raw JSON, as a plain integer literal (a key written with escapes, or twice, cannot be confirmed). */
function writtenAsInteger(rawBody: string, key: string): boolean {
  const pattern = new RegExp(`"${escapeRegExp(key)}"\\s*:\\s*(-?[0-9][0-9.eE+-]*)`, "g");
  const literals = [...rawBody.matchAll(pattern)].slice(0, 2).map((m) => m[1]);
  return literals.length === 1 && /^[1-9][0-9]*$/.test(literals[0] ?? "");
}
