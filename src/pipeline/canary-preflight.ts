// The context gate every command that checks runs before its first check, for a canary on an
// OpenAI-compatible server (vLLM): the server's max_model_len must hold the largest window the
// pipeline sends (canary/openai-context-gate.ts), or the run is refused. An Ollama canary proves
// its loaded context on its first call instead (canary/run-context.ts), and ingest has its own
// gate sized by the policy's segments (ingest/gate.ts); for both, and for a pipeline without a
// canary, this does nothing.
import { requiredCanaryContext } from "../canary/context.js";
import { proveOpenAIContext, type OpenAIContextProof } from "../canary/openai-context-gate.js";
import { OpenAICanaryProbe } from "../canary/openai-probe.js";
import { isGenuinePipeline } from "./genuine.js";

/**
 * Proves, before any check, that the OpenAI-compatible canary server of `pipeline` holds a whole
 * window (`maxInputLength` code points): resolves to what the server reported, or to null when
 * there is nothing to prove (no canary, Ollama, a pipeline this library did not build). Throws
 * CanaryContextError (code `backend`) when the server reports no max_model_len or too small a one.
 */
export async function preflightCanary(pipeline: unknown): Promise<OpenAIContextProof | null> {
  if (!isGenuinePipeline(pipeline)) return null;
  const o = pipeline.options;
  const probe = pipeline.probe;
  if (!o.enableCanary || o.provider !== "openai" || !(probe instanceof OpenAICanaryProbe)) return null;
  const required = requiredCanaryContext({ segmentChars: o.maxInputLength, systemPrompt: probe.systemPrompt, maxTokens: probe.maxTokens });
  return proveOpenAIContext(probe, {
    required,
    unit: `a window of ${o.maxInputLength} code points`,
    remedy: "use a model with a longer context",
  });
}
