// The preflight every command that checks runs before its first check, so a canary that cannot
// hold the run refuses it before any text is read. An Ollama canary proves its loaded context on its
// first call instead (canary/run-context.ts), and ingest has its own gate sized by the policy's
// segments (ingest/gate.ts): for those, this proves no context.
import { requiredCanaryContext } from "../canary/context.js";
import { proveOpenAIContext, proveOpenAIPoolContext, type OpenAICanaryProbe, type OpenAIContextProof } from "../canary/openai-probe.js";
import { canaryKind, poolMembers } from "../canary/identity.js";
import type { EmbeddedCanaryProbe } from "../canary/embedded-probe.js";
import { isGenuinePipeline } from "./pipeline.js";
import { confirmCanaryModel } from "./canary-warning.js";
import { missingModelError, type ServedModels } from "../canary/served-models.js";

/**
 * Before any check: the server must list the canary model (CanaryModelError); an embedded canary is
 * opened (engine imported, model file's SHA-256 checked, model loaded: its typed error, code `config`
 * or `backend`); an OpenAI-compatible server (or every server of a pool of them, which must report
 * alike) must hold a whole window of `maxInputLength` code points in its max_model_len
 * (CanaryContextError); a pool is pinned to one identity (CanaryPoolError). Resolves to what the
 * server reported, or null when there is no such proof (no canary, Ollama, embedded, a pipeline
 * this library did not build).
 */
export async function preflightCanary(pipeline: unknown): Promise<OpenAIContextProof | null> {
  if (!isGenuinePipeline(pipeline)) return null;
  const o = pipeline.options;
  if (!o.enableCanary) return null;
  const probe = pipeline.probe;
  const kind = canaryKind(probe);
  // The server must serve the model before anything else is asked of it (canary-warning.ts).
  await confirmCanaryModel(probe);
  await confirmJudgeModel(pipeline.analyzer, o.judgeModel, o.provider, probe.endpointOrigin);
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

/**
 * With an LLM judge (`--judge-model`), its server must list that model too: otherwise every check
 * would be degraded as `analysis_failed`, and the warning would send the user to the canary.
 */
async function confirmJudgeModel(analyzer: unknown, judgeModel: string | null, provider: string, origin: string): Promise<void> {
  if (judgeModel === null || (provider !== "ollama" && provider !== "openai")) return;
  const judge = analyzer as { servedModels?: () => Promise<ServedModels> };
  if (typeof judge.servedModels !== "function") return;
  const missing = missingModelError(provider, judgeModel, origin, await judge.servedModels(), "judge");
  if (missing !== null) throw missing;
}
