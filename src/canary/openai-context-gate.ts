// The context gate for an OpenAI-compatible canary server, run once before any check: the server must list the model
// with a `max_model_len` that holds the largest prompt the run can send (the conservative bound of context.ts), else
// the run is refused. The proof says how each check's prompt is then counted: exactly (`POST /tokenize`), or by bound.
import { LittleCanaryError } from "../core/errors.js";
import type { OpenAICanaryProbe } from "./openai-probe.js";
import { quotedText } from "../core/display-text.js";

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
export class CanaryContextError extends LittleCanaryError {
  override readonly name = "CanaryContextError";
  constructor(message: string) {
    super("backend", message);
  }
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

/** Proves the server behind `probe` holds `need.required` tokens (after the probe's warm-up), or throws CanaryContextError. */
export async function proveOpenAIContext(probe: OpenAICanaryProbe, need: ContextNeed): Promise<OpenAIContextProof> {
  const where = probe.endpointOrigin;
  const calibration = await probe.calibration();
  if (!calibration.ok) {
    throw new CanaryContextError(
      `the canary warm-up call to ${where} failed (${calibration.failureCode}); the run is refused without proof of the server's context window`,
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
