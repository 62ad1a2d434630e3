// The context gate for an OpenAI-compatible canary server (vLLM and the like), run once before
// any check: the server must list the model with a `max_model_len`, and that window must hold
// the largest prompt the run can send, by the same conservative bound the Ollama gate uses
// (canary/context.ts: four tokens per code point of the text and the system prompt, the reply
// budget and the chat template). A server that reports no window, or a window too small, refuses
// the run: no check is sent. Per check, the probe then counts each prompt exactly with
// `POST /tokenize` when the server offers it; the proof says which count the run's checks use.
// Without it max_model_len is only the server's word, so a check passes only when its prompt fits
// at one token per byte (run-context.ts `provenByByteBound`) and ingest records the run unverified.
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
  /**
   * How each check's prompt is measured against `max_model_len`: `tokenize` (an exact count from
   * the server's own `POST /tokenize`) or `conservative_bound` (no such route: each exercised
   * check's prompt fitted at one token per UTF-8 byte, see `provenByByteBound`).
   */
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

/**
 * Proves the server behind `probe` can hold `need.required` tokens, or throws
 * CanaryContextError (code `backend`) with the endpoint origin and the numbers. Makes the probe's
 * warm-up call (shared with its first check) if it has not been made.
 */
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

/**
 * `proveOpenAIContext` for every endpoint of a pool of OpenAI-compatible servers (vLLM replicas),
 * which must then all report the same served model, weights (`root`), `max_model_len`, engine
 * (`system_fingerprint`) and prompt count: replicas that differ in any of them would make a
 * verdict depend on which one answered. Resolves to the one proof they share; throws
 * CanaryContextError naming both endpoints and both values otherwise.
 */
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
