// The preflight every command that checks runs before its first check. A pool of canary
// endpoints is pinned to one identity (canary/pool.ts: model, digest, context, behavioural
// fingerprint), and a canary on an OpenAI-compatible server (vLLM) must show that its
// max_model_len holds the largest window the pipeline sends (canary/openai-context-gate.ts);
// either failing refuses the run. An Ollama canary proves
// its loaded context on its first call instead (canary/run-context.ts), and ingest has its own
// gate sized by the policy's segments (ingest/gate.ts); for both, and for a pipeline without a
// canary, this does nothing.
import { requiredCanaryContext } from "../canary/context.js";
import { proveOpenAIContext, type OpenAIContextProof } from "../canary/openai-context-gate.js";
import { OpenAICanaryProbe } from "../canary/openai-probe.js";
import { pinCanaryPool } from "../canary/pool.js";
import { isGenuinePipeline } from "./genuine.js";

/**
 * Before any check: pins `pipeline`'s canary pool when it has one (throws CanaryPoolError, code
 * `backend`, when the pool is refused), then proves that an OpenAI-compatible canary server holds
 * a whole window (`maxInputLength` code points). Resolves to what that server reported, or to
 * null when there is no such proof (no canary, Ollama, a pool, a pipeline this library did not
 * build). Throws CanaryContextError (code `backend`) when the server reports no max_model_len or
 * too small a one.
 */
export async function preflightCanary(pipeline: unknown): Promise<OpenAIContextProof | null> {
  if (!isGenuinePipeline(pipeline)) return null;
  const o = pipeline.options;
  const probe = pipeline.probe;
  if (!o.enableCanary) return null;
  // A pool of canary endpoints is pinned to one identity before any text is sent anywhere.
  await pinCanaryPool(probe);
  if (o.provider !== "openai" || !(probe instanceof OpenAICanaryProbe)) return null;
  const required = requiredCanaryContext({ segmentChars: o.maxInputLength, systemPrompt: probe.systemPrompt, maxTokens: probe.maxTokens });
  return proveOpenAIContext(probe, {
    required,
    unit: `a window of ${o.maxInputLength} code points`,
    remedy: "use a model with a longer context",
  });
}
