// The OpenAI-compatible part of the probe skeleton (canary-client.ts); the API key stays in the backend, sent only as a
// Bearer header. The warm-up also identifies the server (openai-identity.ts): with vLLM's `POST /tokenize` each prompt
// is counted exactly (one that cannot fit `max_model_len` is not sent; a reply with fewer prompt tokens was cut);
// without it a reply passes only when its prompt fits at one token per byte. A reply without usage is unverified.
import type { CanaryMetadata } from "./types.js";
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
