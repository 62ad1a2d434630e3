// The OpenAI-compatible part of the probe skeleton (canary-client.ts); the API key stays in the backend, sent only as a
// Bearer header. The warm-up also identifies the server (openai-identity.ts): with vLLM's `POST /tokenize` each prompt
// is counted exactly (one that cannot fit `max_model_len` is not sent; a reply with fewer prompt tokens was cut);
// without it a reply passes only when its prompt fits at one token per byte. A reply without usage is unverified.
import type { CanaryFailureCode, CanaryMetadata } from "./types.js";
import { CanaryRefusal, OPENAI_MODEL_FIX } from "./served-models.js";
import { quotedText } from "../core/display-text.js";
import { OpenAIChatBackend } from "./chat-backend.js";
import { DEFAULT_OPENAI_MODEL } from "./defaults.js";
import { isPlainObject } from "../core/guards.js";
import { belowLowerBound, calibrate, provenByByteBound } from "./run-context.js";
import { fingerprintOf, type OpenAIServerIdentity } from "./openai-identity.js";
import { finiteNonNegative } from "./options.js";
import { failed, type ChatFailure } from "./chat-exchange.js";
import { CanaryClient, probeRole, type CanaryClientOptions, type ReplyProof, type WarmUpFailure } from "./canary-client.js";
import { brandCanary } from "./identity.js";

export interface OpenAICanaryProbeOptions extends CanaryClientOptions {
  readonly baseUrl?: string;
  /** Sent as `Authorization: Bearer <key>` only when non-empty. */
  readonly apiKey?: string;
}

/** The warm-up's calibration and what the server said about itself (null, with `serverProblem`, when `GET /models` gave no identity), or its failure. */
export type CalibrationOutcome =
  | {
      readonly ok: true;
      readonly bytesPerToken: number | null;
      readonly server: OpenAIServerIdentity | null;
      readonly serverProblem: string | null;
    }
  | WarmUpFailure;

type Calibrated = Extract<CalibrationOutcome, { ok: true }>;

/** The canary probe on an OpenAI-compatible server (see the header); the API key stays in the backend. */
export class OpenAICanaryProbe extends CanaryClient<OpenAIChatBackend, Calibrated, number | null> {
  readonly provider = "openai" as const;

  constructor(options: OpenAICanaryProbeOptions = {}) {
    super(options, (check) => new OpenAIChatBackend(options, { ...probeRole(DEFAULT_OPENAI_MODEL, "baseUrl"), check }));
    brandCanary(this, "openai", new.target === OpenAICanaryProbe);
  }

  /** Where the server offers `POST /tokenize`: the exact count, and a prompt that cannot fit is not sent. */
  protected async beforeChat(userInput: string, calibration: Calibrated): Promise<number | null | ChatFailure> {
    const server = calibration.server;
    const count = server?.tokenize === true ? await this.backend.tokenize({ systemPrompt: this.systemPrompt, userContent: userInput }) : null;
    const exact = typeof count === "number" ? count : null;
    if (exact !== null && server?.maxModelLen != null && exact + this.maxTokens > server.maxModelLen) {
      // Known not to fit: the server would refuse it, so it is not sent.
      return failed(
        "context_too_long",
        `the prompt needs ${exact} tokens (POST /tokenize) and ${this.maxTokens} for the reply, more than the max_model_len ${server.maxModelLen} of the server at ${this.endpointOrigin}`,
        { prompt_count: exact },
      );
    }
    return exact;
  }

  protected proveReply(userInput: string, metadata: CanaryMetadata, calibration: Calibrated, exact: number | null): ReplyProof {
    const promptTokens = metadata["prompt_tokens"];
    if (typeof promptTokens !== "number") {
      // Without usage nothing shows how much of the prompt was read: a server that cut it would answer alike.
      return failed(
        "context_unverified",
        `Canary context cannot be confirmed: the server at ${this.endpointOrigin} reported no usage.prompt_tokens, so the reply cannot show that the whole prompt was read`,
        exact === null ? metadata : { ...metadata, prompt_count: exact },
      );
    }
    if (exact !== null) {
      // The exact count is the server's own tokenization: a reply reporting fewer prompt tokens read less than the whole prompt.
      if (promptTokens < exact) {
        return failed(
          "context_truncated",
          `Canary prompt was truncated by the backend (prompt_tokens ${promptTokens} is below the ${exact} tokens POST /tokenize counted)`,
          { ...metadata, prompt_count: exact },
        );
      }
      return { ok: true, metadata: { ...metadata, prompt_count: exact, context_check: "tokenize" } };
    }
    // Not a proof (the margin guesses at the densest prose), a cheap catch of a clearly cut prompt: it can degrade, never pass.
    const { bytesPerToken } = calibration;
    const cut = bytesPerToken === null ? null : belowLowerBound("prompt_tokens", promptTokens, this.systemPrompt, userInput, bytesPerToken);
    if (cut !== null) return failed("context_truncated", cut, metadata);
    // No exact count: max_model_len is the server's word, and a server (or proxy) may keep a prompt's tail and report usage for it.
    const proof = provenByByteBound(this.systemPrompt, userInput, this.maxTokens, calibration.server?.maxModelLen ?? null);
    if (!proof.fits) {
      return failed(
        "context_unverified",
        `Canary context cannot be confirmed: the server at ${this.endpointOrigin} offers no POST /tokenize, and this prompt with its reply budget may need up to ${proof.needed} tokens at one token per byte, ` +
          `more than the ${proof.window} that can be vouched for without an exact count (serve the canary with vLLM, whose POST /tokenize counts each prompt exactly)`,
        metadata,
      );
    }
    return { ok: true, metadata: { ...metadata, context_check: "one_token_per_byte" } };
  }

  /** What the server said about itself once the warm-up has answered, else null; never makes a request. */
  get knownServer(): OpenAIServerIdentity | null {
    return this.settledWarmUp?.server ?? null;
  }

  /** The warm-up: its usage.prompt_tokens gives the backend's bytes per token (null without usage). */
  calibration(): Promise<CalibrationOutcome> {
    return this.warmedUp();
  }

  /** The calibration reply and, at the same time, what the server says about itself (openai-identity.ts). */
  protected async warmUp(): Promise<CalibrationOutcome> {
    const [read, identity] = await Promise.all([this.calibrationReply(), this.backend.identify()]);
    if (!read.ok) return read;
    const usage = isPlainObject(read.data["usage"]) ? read.data["usage"] : {};
    const server = identity.ok
      ? Object.freeze({
          ...identity.identity,
          systemFingerprint: fingerprintOf(read.data["system_fingerprint"]),
          warmUpPromptTokens: finiteNonNegative(usage["prompt_tokens"]),
        })
      : null;
    return {
      ok: true,
      bytesPerToken: calibrate(this.systemPrompt, usage["prompt_tokens"]),
      server,
      serverProblem: identity.ok ? null : identity.message,
    };
  }
}

// The context gate, run once before any check: the server must list the model with a `max_model_len` that holds the
// largest prompt the run can send (context.ts's bound), else the run is refused.

/** What the gate proved about the server, as the manifest records it (snake_case). */
export interface OpenAIContextProof {
  /** The served model name, as `GET /v1/models` lists it. */
  readonly served_model: string;
  /** vLLM's `root` of the model (the weights it loaded), or null when not listed. */
  readonly root: string | null;
  readonly max_model_len: number;
  /** `system_fingerprint` of the warm-up completion, or null when the server gave none. */
  readonly system_fingerprint: string | null;
  /** How each check's prompt is measured: exactly by `POST /tokenize`, or at one token per UTF-8 byte (`provenByByteBound`). */
  readonly prompt_count: "tokenize" | "conservative_bound";
}

/** The canary server cannot be shown to hold a whole prompt; the run must not start. */
export class CanaryContextError extends CanaryRefusal {
  override readonly name = "CanaryContextError";
}

/** What the caller's largest prompt is and how a user makes it smaller. */
export interface ContextNeed {
  /** Tokens the largest prompt may need (requiredCanaryContext). */
  readonly required: number;
  /** What one prompt holds, for the message ("a segment of 3500 code points"). */
  readonly unit: string;
  /** How to make the prompt smaller ("lower segment_chars"). */
  readonly remedy: string;
}

/** What a failed warm-up call's code means, in words (the code stays in the message too, for a search). */
const WARM_UP_FAILURE_WORDS: Partial<Record<CanaryFailureCode, string>> = {
  unavailable: "unavailable: nothing answered at that address",
  timeout: "timeout: no answer before the timeout",
  http_error: "http_error: the server answered with an error status",
  invalid_response: "invalid_response: the answer is not an OpenAI-compatible chat completion",
  model_not_found: "model_not_found: the server does not serve that model",
};
const WRONG_URL_FIX = "fix: check that --base-url is the server's OpenAI-compatible base URL, path included (vLLM's ends in /v1; docs/vllm.md)";
/** The fix that fits each failure of the warm-up call. */
const WARM_UP_FAILURE_FIX: Partial<Record<CanaryFailureCode, string>> = {
  unavailable: "fix: start the server, or name it rightly: its base URL with --base-url (--canary-endpoint for each server of a pool)",
  timeout: "fix: raise --timeout (a server loading the model answers its first call late), or check that the server is not stuck",
  model_not_found: OPENAI_MODEL_FIX,
};

/** Proves the server behind `probe` holds `need.required` tokens (after the probe's warm-up), or throws CanaryContextError. */
export async function proveOpenAIContext(probe: OpenAICanaryProbe, need: ContextNeed): Promise<OpenAIContextProof> {
  const where = probe.endpointOrigin;
  const calibration = await probe.calibration();
  if (!calibration.ok) {
    throw new CanaryContextError(
      `the canary warm-up call to ${where} failed (${WARM_UP_FAILURE_WORDS[calibration.failureCode] ?? calibration.failureCode}); ` +
        `the run is refused without proof of the server's context window; ${WARM_UP_FAILURE_FIX[calibration.failureCode] ?? WRONG_URL_FIX}`,
    );
  }
  const server = calibration.server;
  if (server === null) {
    throw new CanaryContextError(
      `could not identify the canary server: ${calibration.serverProblem ?? `GET /v1/models at ${where} gave no answer`}; the run is refused`,
    );
  }
  if (server.maxModelLen === null) {
    throw new CanaryContextError(
      `the server at ${where} reports no max_model_len for the model ${quotedText(server.model)} in GET /v1/models, so no prompt can be shown to fit; ` +
        "the run is refused (vLLM reports it: see docs/vllm.md)",
    );
  }
  if (server.maxModelLen < need.required) {
    throw new CanaryContextError(
      `the server at ${where} holds max_model_len ${server.maxModelLen} for the model ${quotedText(server.model)}, fewer than the ${need.required} tokens ${need.unit} may need; ` +
        `start it with --max-model-len ${need.required} or more, or ${need.remedy}`,
    );
  }
  return Object.freeze({
    served_model: server.model,
    root: server.root,
    max_model_len: server.maxModelLen,
    system_fingerprint: server.systemFingerprint,
    prompt_count: server.tokenize ? "tokenize" : "conservative_bound",
  });
}

/** The members of a proof that every endpoint of a pool must report alike, in message order. */
const POOL_AGREEMENT: ReadonlyArray<readonly [keyof OpenAIContextProof, string]> = [
  ["served_model", "serves the model"],
  ["root", "loaded the weights (root)"],
  ["max_model_len", "holds max_model_len"],
  ["system_fingerprint", "reports the engine (system_fingerprint)"],
  ["prompt_count", "counts prompts by"],
];

/** `proveOpenAIContext` for each endpoint of a pool; the proofs must agree in POOL_AGREEMENT, else a verdict would depend on which replica answered. */
export async function proveOpenAIPoolContext(probes: readonly OpenAICanaryProbe[], need: ContextNeed): Promise<OpenAIContextProof> {
  const first = probes[0];
  if (first === undefined) throw new CanaryContextError("a canary pool needs at least one endpoint");
  const proofs = await Promise.all(probes.map((probe) => proveOpenAIContext(probe, need)));
  const reference = proofs[0] as OpenAIContextProof;
  proofs.forEach((proof, i) => {
    for (const [member, what] of POOL_AGREEMENT) {
      if (proof[member] === reference[member]) continue;
      throw new CanaryContextError(
        `canary endpoint ${(probes[i] as OpenAICanaryProbe).endpointOrigin} ${what} ${JSON.stringify(proof[member])}, but ${first.endpointOrigin} ${JSON.stringify(reference[member])}; the run is refused before any check`,
      );
    }
  });
  return reference;
}
