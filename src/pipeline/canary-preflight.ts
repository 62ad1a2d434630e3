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
import { OpenAICanaryProbe } from "../canary/openai-probe.js";
import { CanaryPool, pinCanaryPool } from "../canary/pool.js";
import { EmbeddedCanaryProbe } from "../canary/embedded-probe.js";
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
  const probe = pipeline.probe;
  if (!o.enableCanary) return null;
  // The server must serve the model before anything else is asked of it (canary-model.ts).
  await confirmCanaryModel(probe);
  if (probe instanceof EmbeddedCanaryProbe) {
    const opened = await probe.open();
    if (!opened.ok) throw opened.error;
    return null;
  }
  const need = (p: OpenAICanaryProbe) => ({
    required: requiredCanaryContext({ segmentChars: o.maxInputLength, systemPrompt: p.systemPrompt, maxTokens: p.maxTokens }),
    unit: `a window of ${o.maxInputLength} code points`,
    remedy: "use a model with a longer context",
  });
  if (probe instanceof CanaryPool) {
    // Every replica's server report first (the same model, weights, window and engine), then the
    // pool's pin (reachability and the behavioural fingerprint), all before any text is sent.
    const members = probe.members.map((m) => m.probe);
    const openai = o.provider === "openai" && members.every((m): m is OpenAICanaryProbe => m instanceof OpenAICanaryProbe);
    const proof = openai ? await proveOpenAIPoolContext(members, need(members[0] as OpenAICanaryProbe)) : null;
    await pinCanaryPool(probe);
    return proof;
  }
  if (o.provider !== "openai" || !(probe instanceof OpenAICanaryProbe)) return null;
  return proveOpenAIContext(probe, need(probe));
}
