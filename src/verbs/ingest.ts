// `ingest`: the library call behind `little-canary ingest`. It takes the run's settings as one
// options object (those of `ingestFiles`, with the canary given as SecurityPipeline options
// instead of a built pipeline) and a reporter for progress and warnings; `ingestFiles` resolves
// them once into its frozen run plan (ingest/run-plan.ts) and runs pre-flight, lock, read,
// checks and publication. What this verb adds is the pipeline of an ingest run, built once the
// policy is known: one canary context window for the whole run, sized for the policy's segments,
// and with an allowlist the canary also inspects what the structural layer blocked.
import { canaryTarget, type CanaryTarget } from "../pipeline/canary-warning.js";
import type { IngestPolicy } from "../documents/policy.js";
import {
  canaryNumCtxForPolicy,
  ingestFiles,
  type IngestFilesOptions,
  type IngestFilesResult,
  type IngestReporter,
  type IngestRunReport,
} from "../ingest/files.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import { SecurityPipeline } from "../pipeline/pipeline.js";

export { IngestRefusedError } from "../ingest/files.js";

/** Options of `ingest`: those of `ingestFiles`, with the canary's settings instead of a pipeline. */
export interface IngestOptions extends Omit<IngestFilesOptions, "pipeline" | "reporter" | "unverifiedPipeline"> {
  /**
   * The canary's settings, or a function that gives them: it is called after the targets, the
   * policy and the allowlist are checked, so that a run with several mistakes reports the same
   * one as the CLI. The run picks its own context window and ignores `onDegraded` (a degraded
   * record is held whatever it says).
   */
  readonly canary: SecurityPipelineOptions | (() => SecurityPipelineOptions);
}

/** What an ingest run tells its caller as it goes: `ingestFiles`' reporter, told where the canary calls went. */
export interface IngestVerbReporter extends Omit<IngestReporter, "finished"> {
  /** The checks finished (see IngestReporter.finished); `canary` is where the calls went and what the model check saw. */
  readonly finished?: (run: IngestRunReport, canary: CanaryTarget) => void | Promise<void>;
}

/** The pipeline of an ingest run under `policy`, from the canary's settings. */
function ingestPipeline(options: SecurityPipelineOptions, policy: IngestPolicy, allowing: boolean): SecurityPipeline {
  // One context window for the whole run: Ollama reloads the model whenever num_ctx changes. An
  // OpenAI-compatible server has a fixed window (its max_model_len), checked by the gate.
  const numCtx = options.provider === "ollama" || options.provider === undefined ? { canaryNumCtx: canaryNumCtxForPolicy(policy) } : {};
  const { mode, canaryModel, ollamaUrl, canaryPool, canaryTimeout, enableCanary, provider, baseUrl, apiKey, embedded, onWarning } = options;
  const endpoint = canaryPool !== undefined ? { canaryPool } : ollamaUrl !== undefined ? { ollamaUrl } : {};
  const backend =
    provider === "openai"
      ? { provider, baseUrl, ...(apiKey !== undefined ? { apiKey } : {}) }
      : provider === "embedded"
        ? { provider, ...(embedded !== undefined ? { embedded } : {}) }
        : {};
  // An allowlist admits only what the canary inspected too, so with one the canary also sees
  // text the structural layer blocked (docs/ingest.md, "False blocks: the allowlist").
  const allowed = allowing ? { skipCanaryIfStructuralBlocks: false } : {};
  return new SecurityPipeline({
    mode,
    canaryModel,
    ...endpoint,
    canaryTimeout,
    enableCanary,
    ...backend,
    ...(enableCanary ? numCtx : {}),
    ...allowed,
    ...(onWarning !== undefined ? { onWarning } : {}),
  });
}

/**
 * Ingests a JSONL file (or stream) and publishes its manifest (and export) crash-safely; see
 * `ingestFiles` for the sequence, the result and the errors.
 */
export async function ingest(options: IngestOptions, reporter: IngestVerbReporter = {}): Promise<IngestFilesResult> {
  const { canary, ...run } = options;
  // Set when the plan is resolved, before the checks: `finished` reads where its calls went.
  let pipeline: SecurityPipeline | undefined;
  const { finished, ...rest } = reporter;
  return ingestFiles({
    ...run,
    pipeline: (policy) => {
      pipeline = ingestPipeline(typeof canary === "function" ? canary() : canary, policy, options.allow != null);
      return pipeline;
    },
    reporter: {
      ...rest,
      ...(finished ? { finished: (report: IngestRunReport) => finished(report, canaryTarget(pipeline as SecurityPipeline)) } : {}),
    },
  });
}
