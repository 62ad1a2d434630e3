// The preflight every command that checks runs before its first check. A pool of canary
// endpoints is pinned to one identity (canary/pool.ts: model, digest, context, behavioural
// fingerprint), and a canary on an OpenAI-compatible server (vLLM) must show that its
// max_model_len holds the largest window the pipeline sends (canary/openai-context-gate.ts);
// either failing refuses the run. An Ollama canary proves
// its loaded context on its first call instead (canary/run-context.ts), and ingest has its own
// gate sized by the policy's segments (ingest/gate.ts); for both, and for a pipeline without a
// canary, this does nothing. An embedded canary (canary/embedded-probe.ts) is opened here: the
// engine imported, the model file's SHA-256 checked, the model loaded and its context created,
// so a missing engine, a wrong file or a failed load refuses the run before any text is read.
import { requiredCanaryContext } from "../canary/context.js";
import { proveOpenAIContext, proveOpenAIPoolContext, type OpenAIContextProof } from "../canary/openai-context-gate.js";
import { canaryKind, poolMembers } from "../canary/identity.js";
import type { OpenAICanaryProbe } from "../canary/openai-probe.js";
import type { EmbeddedCanaryProbe } from "../canary/embedded-probe.js";
import { isGenuinePipeline } from "./genuine.js";
import { confirmCanaryModel } from "./canary-model.js";

/**
 * Before any check: proves that an OpenAI-compatible canary server (or every server of a pool of
 * them, which must all report alike) holds a whole window (`maxInputLength` code points), and
 * pins `pipeline`'s canary pool when it has one (throws CanaryPoolError, code `backend`, when the
 * pool is refused). Resolves to what the server reported, or to null when there is no such proof
 * (no canary, Ollama, embedded, a pipeline this library did not build). Throws the embedded
 * canary's typed error when it cannot open (code `config`: engine missing, wrong SHA-256; code
 * `backend`: the engine failed). Throws CanaryModelError (code `backend`) when the server does
 * not list the canary model. Throws CanaryContextError (code `backend`) when the server reports no max_model_len or
 * too small a one.
 */
export async function preflightCanary(pipeline: unknown): Promise<OpenAIContextProof | null> {
  if (!isGenuinePipeline(pipeline)) return null;
  const o = pipeline.options;
  if (!o.enableCanary) return null;
  const probe = pipeline.probe;
  const kind = canaryKind(probe);
  // The server must serve the model before anything else is asked of it (canary-model.ts).
  await confirmCanaryModel(probe);
  if (kind === "embedded") {
    const opened = await (probe as EmbeddedCanaryProbe).open();
    if (!opened.ok) throw opened.error;
    return null;
  }
  const need = (p: OpenAICanaryProbe) => ({
    required: requiredCanaryContext({ segmentChars: o.maxInputLength, systemPrompt: p.systemPrompt, maxTokens: p.maxTokens }),
    unit: `a window of ${o.maxInputLength} code points`,
    remedy: "use a model with a longer context",
  });
  const members = poolMembers(probe);
  if (members !== null) {
    // Every replica's server report first (the same model, weights, window and engine), then the
    // pool's pin (reachability and the behavioural fingerprint), all before any text is sent.
    const openai = o.provider === "openai" && members.every((m) => canaryKind(m) === "openai");
    const endpoints = members as readonly OpenAICanaryProbe[];
    const proof = openai ? await proveOpenAIPoolContext(endpoints, need(endpoints[0] as OpenAICanaryProbe)) : null;
    // The pool module is loaded already (the pipeline built this pool from it).
    const { pinCanaryPool } = await import("../canary/pool.js");
    await pinCanaryPool(probe);
    return proof;
  }
  if (o.provider !== "openai" || kind !== "openai") return null;
  return proveOpenAIContext(probe as OpenAICanaryProbe, need(probe as OpenAICanaryProbe));
}
