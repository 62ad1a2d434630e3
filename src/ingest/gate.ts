// The canary context gate (docs/ingest.md): before any check, prove the canary sees a whole
// segment (Ollama silently truncates a long prompt and answers 200). Only a genuine, frozen
// SecurityPipeline with the library's own probe is trusted; anything else needs
// `unverifiedPipeline` and is recorded `canary_context_verified: false` (which `verify` refuses).
// Ollama: the trained length, then the warm-up call and GET /api/ps must show the loaded context,
// proved before the run's first check sent (`beforeFirstCheck`), so a fully cached run makes no
// chat call. OpenAI-compatible (vLLM): a max_model_len that holds a segment, only its word without
// POST /tokenize (then unverified, each segment proving itself: canary/run-context.ts). Embedded:
// its context must hold the longest segment, counted with the model's tokenizer.
import { LittleCanaryError } from "../core/errors.js";
import { embeddedRequiredContext, requiredCanaryContext } from "../canary/context.js";
import { isOwnCanary, isOwnPool } from "../canary/identity.js";
import type { OllamaCanaryProbe } from "../canary/ollama-probe.js";
import { CanaryContextError, proveOpenAIContext, proveOpenAIPoolContext, type OpenAIContextProof, type OpenAICanaryProbe } from "../canary/openai-probe.js";
import type { CanaryPool } from "../canary/pool.js";
import { UNVERIFIED_TEXT, tooSmallMessage } from "../canary/run-context.js";
import { analyzerKind } from "../analysis/identity.js";
import type { EmbeddedCanaryProbe, EmbeddedIdentity } from "../canary/embedded-probe.js";
import { isGenuinePipeline } from "../pipeline/pipeline.js";
import { confirmCanaryModel } from "../pipeline/canary-warning.js";
import { CanaryModelError, unreachableMessage, type ServedModels } from "../canary/served-models.js";
import { quotedText } from "../core/display-text.js";
import type { IngestPolicy } from "../documents/policy.js";

/** What the context gate found: whether it verified the canary, the context required and the one loaded, and the model digest. */
export interface GateResult {
  readonly verified: boolean;
  readonly required: number | null;
  readonly contextLength: number | null;
  readonly modelDigest: string | null;
  /** For an OpenAI-compatible canary: what the server proved about itself (absent for Ollama). */
  readonly server?: OpenAIContextProof;
  /** A canary pool's behavioural fingerprint (canary/pool-identity.ts); absent for one endpoint. */
  readonly canaryFingerprint?: { readonly sha256: string; readonly probes: number };
  /** For an embedded canary: its file-sha256 identity, engine version and context size. */
  readonly embedded?: EmbeddedIdentity;
  /**
   * The part of the proof that needs a chat call (Ollama's warm-up and GET /api/ps), awaited
   * before the run's first check; rejects with IngestGateError, every call sharing one outcome.
   */
  readonly beforeFirstCheck?: () => Promise<void>;
}

/** The gate of a run that does not verify its canary (none, or a stand-in pipeline). */
export const UNVERIFIED_GATE: GateResult = Object.freeze({ verified: false, required: null, contextLength: null, modelDigest: null });

const REPLACED_PROBE = "ingest needs the library's own canary probe: a replaced probe's context window cannot be verified";

/** The context (tokens) a segment of `policy` needs on `probe`: its prompt, the segment, the reply budget. */
function segmentContext(policy: IngestPolicy, probe: { readonly systemPrompt: string; readonly maxTokens: number }): number {
  return requiredCanaryContext({ segmentChars: policy.segment_chars, systemPrompt: probe.systemPrompt, maxTokens: probe.maxTokens });
}

/** An OpenAI-compatible server's context proof for a segment of `policy`; a failed proof refuses the run. */
async function proveSegmentContext(
  prove: (need: { required: number; unit: string; remedy: string }) => Promise<OpenAIContextProof>,
  required: number,
  policy: IngestPolicy,
) {
  try {
    return await prove({ required, unit: `a segment of ${policy.segment_chars} code points`, remedy: "lower segment_chars" });
  } catch (error) {
    if (error instanceof CanaryContextError) throw new IngestGateError("backend", `${error.message}; nothing written`);
    throw error;
  }
}

/** The gate refused the pipeline or its backend; the run must not start. */
export class IngestGateError extends LittleCanaryError {
  override readonly name = "IngestGateError";
}

/** Structural duck type for stand-in pipelines accepted with `unverifiedPipeline`. */
export interface CheckingPipeline {
  /** Checks one text and resolves to its verdict; `options.signal`: the run's abort (PipelineBase.check). */
  check(text: string, options?: { readonly signal?: AbortSignal }): Promise<unknown>;
}

// A replaced probe's context cannot be verified, so only the library's own, unmodified backends
// pass (canary/identity.ts keeps the brand; a method shadowed on the instance fails it).
const isGenuineProbe = <P>(probe: unknown, kind: "openai" | "ollama" | "embedded"): probe is P => isOwnCanary(probe, kind);
/** A pool whose every endpoint is a genuine probe of `kind`. */
const isGenuinePool = (probe: unknown, kind: "openai" | "ollama"): probe is CanaryPool => isOwnPool(probe, kind);

/** The gate for a pool of OpenAI-compatible servers: one served model, weights, engine and window for a segment, and the pool's pin. */
async function openAIPoolGate(pool: CanaryPool, policy: IngestPolicy): Promise<GateResult> {
  const members = pool.members.map((m) => m.probe as OpenAICanaryProbe);
  const first = members[0] as OpenAICanaryProbe;
  const required = segmentContext(policy, first);
  const server = await proveSegmentContext((need) => proveOpenAIPoolContext(members, need), required, policy);
  const pinned = await pool.pin();
  if (!pinned.ok) throw new IngestGateError("backend", `${pinned.error}; ingest refuses to run`);
  const identity = pinned.identity;
  return {
    verified: server.prompt_count === "tokenize",
    required,
    contextLength: server.max_model_len,
    modelDigest: null,
    server,
    canaryFingerprint: { sha256: identity.fingerprintSha256, probes: identity.fingerprintProbes },
  };
}

/** The refusal of a canary model trained on fewer tokens than a segment needs (`null`: its length is unknown). */
function trainedTooShort(contextLength: number | null, required: number): IngestGateError {
  return new IngestGateError(
    "backend",
    `the canary model's trained context length (${contextLength ?? "unknown"}) is smaller than the ${required} tokens a segment needs; lower segment_chars or use a model with a longer context`,
  );
}

/** A pool's gate: every endpoint pinned to one identity (digest, trained and loaded context, fingerprint), each held as one probe is. */
async function poolGate(pool: CanaryPool, required: number): Promise<GateResult> {
  const pinned = await pool.pin({ minContextLength: required });
  if (!pinned.ok) throw new IngestGateError("backend", `${pinned.error}; ingest refuses to run`);
  const identity = pinned.identity;
  if (identity.contextLength === null || identity.contextLength < required) throw trainedTooShort(identity.contextLength, required);
  const loaded = identity.loaded;
  if (loaded === null || loaded.kind !== "verified") {
    const why = loaded !== null && loaded.kind === "unverified" ? UNVERIFIED_TEXT[loaded.reason] : "the loaded context is unknown";
    throw new IngestGateError("backend", `could not verify the canary's loaded context: ${why}; ingest refuses to run without it`);
  }
  return {
    verified: true,
    required,
    contextLength: identity.contextLength,
    modelDigest: identity.modelDigest,
    canaryFingerprint: { sha256: identity.fingerprintSha256, probes: identity.fingerprintProbes },
  };
}

/** The canary context gate: before any record is checked, proves that the canary can see a whole segment; throws IngestGateError otherwise. */
export async function runContextGate(
  pipeline: CheckingPipeline,
  policy: IngestPolicy,
  options: { readonly unverifiedPipeline?: boolean } = {},
): Promise<GateResult> {
  if (!isGenuinePipeline(pipeline)) {
    if (options.unverifiedPipeline === true) {
      return UNVERIFIED_GATE;
    }
    throw new IngestGateError(
      "config",
      "ingest needs a SecurityPipeline: the pipeline is not one this library built (pass unverifiedPipeline to run a stand-in, recorded as unverified)",
    );
  }
  if (pipeline.hasCallbacks) {
    throw new IngestGateError("config", "ingest does not support pipeline callbacks: they would see every segment's verdict");
  }
  const o = pipeline.options;
  if (o.maxInputLength < policy.segment_chars) {
    throw new IngestGateError("config", `segment_chars (${policy.segment_chars}) exceeds the pipeline's max_input_length (${o.maxInputLength})`);
  }
  if (!o.enableCanary) return UNVERIFIED_GATE;
  if (o.judgeModel !== null || analyzerKind(pipeline.analyzer) !== "regex") {
    throw new IngestGateError("config", "ingest does not support judgeModel: strict/v1 classifies regex analysis only");
  }
  const probe = pipeline.probe;
  if (o.provider === "embedded") return embeddedGate(probe, policy);
  if (o.provider === "openai") return openAIGate(probe, policy);
  if (isGenuinePool(probe, "ollama")) {
    const numCtx = probe.numCtx;
    const required = segmentContext(policy, probe);
    if (numCtx === null || numCtx < required) {
      throw new IngestGateError("config", `the canary context window (num_ctx=${numCtx ?? "unset"}) cannot hold a whole segment; lower segment_chars`);
    }
    return poolGate(probe, required);
  }
  if (!isGenuineProbe<OllamaCanaryProbe>(probe, "ollama")) {
    throw new IngestGateError("config", REPLACED_PROBE);
  }
  const required = segmentContext(policy, probe);
  if (probe.numCtx === null || probe.numCtx < required) {
    throw new IngestGateError(
      "config",
      `the canary context window (num_ctx=${probe.numCtx ?? "unset"}) cannot hold a whole segment; ` +
        `construct SecurityPipeline({ canaryNumCtx: ${required} }) or larger, or lower segment_chars`,
    );
  }
  const served = await requireServedModel(probe);
  const contextLength = await probe.contextLength();
  if (contextLength === null) {
    // The listing never came: a stuck, starting or unreachable server, not (as far as anyone can tell) another service. A
    // timeout does not say whether the connection was accepted, so the line does not claim it.
    if (served?.kind === "unknown" && served.timedOut === true) {
      throw new IngestGateError(
        "backend",
        `the canary at ${probe.endpointOrigin} did not answer GET /api/tags before the timeout ` +
          "(--timeout, at most 30 s for this listing); ingest refuses to run without the model's context length; " +
          "fix: check that the server is running, reachable from here, and not stuck or still starting (a --timeout under 30 s also shortens this wait)",
      );
    }
    // Neither listing answered as Ollama does: most likely another service at that URL.
    const notOllama = served?.kind === "unknown" ? `; ${NOT_OLLAMA}` : "";
    throw new IngestGateError(
      "backend",
      `could not read the canary model's context length from POST /api/show at ${probe.endpointOrigin}; ingest refuses to run without it${notOllama}`,
    );
  }
  if (contextLength < required) throw trainedTooShort(contextLength, required);
  // The trained length and the digest come from listing endpoints. Only the loaded context says
  // what the server gave the model, and proving it takes the warm-up chat and GET /api/ps: that
  // proof is made before the first check the run really sends, so a re-run whose every verdict
  // is cached makes no chat call. No check is sent without it, and a failed proof refuses the run.
  const modelDigest = await probe.modelDigest();
  // Proved at most once: every caller shares its one outcome.
  let proof: Promise<void> | null = null;
  return { verified: true, required, contextLength, modelDigest, beforeFirstCheck: () => (proof ??= proveLoadedContext(probe)) };
}

/** The warm-up call and GET /api/ps prove the num_ctx was honoured; throws IngestGateError (code `backend`) when they do not. */
async function proveLoadedContext(probe: OllamaCanaryProbe): Promise<void> {
  const run = await probe.runContext();
  if (!run.ok) {
    // Where and what, as every other canary refusal says: the model and the server's origin, then the fix.
    const where = `model ${quotedText(probe.model)} at ${probe.endpointOrigin}`;
    throw new IngestGateError(
      "backend",
      `the canary warm-up call failed (${run.failureCode}; ${where}); ingest refuses to run without proof of the loaded context: make sure the server answers a chat with this model (--timeout gives a slow first load longer), then run again`,
    );
  }
  const loaded = run.value.loaded;
  if (loaded.kind === "too_small") {
    throw new IngestGateError("backend", `${tooSmallMessage(loaded.contextLength, loaded.numCtx)}; ingest refuses to run`);
  }
  if (loaded.kind === "unverified") {
    throw new IngestGateError(
      "backend",
      `could not verify the canary's loaded context: ${UNVERIFIED_TEXT[loaded.reason]}; ingest refuses to run without it (an Ollama that reports context_length in /api/ps is needed)`,
    );
  }
}

/** What a server that answers but gives no Ollama model list most likely is, and the fix. */
const NOT_OLLAMA =
  "GET /api/tags gave no model list either, so the server may not be Ollama: fix: point --ollama-url at an Ollama server (an OpenAI-compatible one such as vLLM takes --base-url)";

/** Before the context proofs: the server must answer and list the canary model, or one line names model, origin and fix; returns what it said. */
async function requireServedModel(probe: OllamaCanaryProbe | OpenAICanaryProbe): Promise<ServedModels | null> {
  let served: ServedModels | null;
  try {
    served = await confirmCanaryModel(probe);
  } catch (error) {
    if (error instanceof CanaryModelError) throw new IngestGateError("backend", error.message, { cause: error });
    throw error;
  }
  if (served?.kind === "unreachable") throw new IngestGateError("backend", unreachableMessage(probe.provider, probe.endpointOrigin, served.cause));
  return served;
}

/** The gate for an OpenAI-compatible server: GET /v1/models must give a max_model_len that holds a segment. */
async function openAIGate(probe: unknown, policy: IngestPolicy): Promise<GateResult> {
  if (isGenuinePool(probe, "openai")) return openAIPoolGate(probe, policy);
  if (!isGenuineProbe<OpenAICanaryProbe>(probe, "openai")) {
    throw new IngestGateError("config", REPLACED_PROBE);
  }
  const required = segmentContext(policy, probe);
  await requireServedModel(probe);
  const server = await proveSegmentContext((need) => proveOpenAIContext(probe, need), required, policy);
  // Only exact counts (`POST /tokenize`) make max_model_len more than its word; without them each
  // segment must fit at one token per byte.
  return { verified: server.prompt_count === "tokenize", required, contextLength: server.max_model_len, modelDigest: null, server };
}

/** The gate for an embedded canary: the engine opens, and its context holds the prompt, the longest segment and the reply budget. */
async function embeddedGate(probe: unknown, policy: IngestPolicy): Promise<GateResult> {
  if (!isGenuineProbe<EmbeddedCanaryProbe>(probe, "embedded")) {
    throw new IngestGateError("config", REPLACED_PROBE);
  }
  const opened = await probe.open();
  if (!opened.ok) throw new IngestGateError(opened.error.code, `${opened.error.message}; nothing written`, { cause: opened.error });
  const templateTokens = await probe.countPromptTokens("");
  if (templateTokens === null) throw new IngestGateError("backend", "the embedded canary could not count its prompt; nothing written");
  const required = embeddedRequiredContext({ templateTokens, windowChars: policy.segment_chars, maxTokens: probe.maxTokens });
  const identity = opened.identity;
  if (identity.context_size < required) {
    throw new IngestGateError(
      "backend",
      `the embedded canary's context of ${identity.context_size} tokens (the model was trained on ${identity.train_context_size}) cannot hold a segment of ` +
        `${policy.segment_chars} code points, which may need ${required}; lower segment_chars or use a model with a longer context; nothing written`,
    );
  }
  return { verified: true, required, contextLength: identity.context_size, modelDigest: `sha256:${identity.sha256}`, embedded: identity };
}
