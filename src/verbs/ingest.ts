// `ingest`: the library call behind `little-canary ingest`, read as the run's table of contents:
// the run's settings, the canary's and the pipeline's options for the policy are all resolved and
// checked before anything is opened; then the run's steps (ingest/files.ts), reported as they end.
import type { CanaryTarget } from "../pipeline/canary-warning.js";
import type { IngestPolicy } from "../documents/policy.js";
import { canaryNumCtxForPolicy, ingestSteps, resumeAfter, type IngestFilesResult } from "../ingest/files.js";
import { resolvePipelineOptions } from "../canary/pipeline-options.js";
import type { SecurityPipelineOptions } from "../pipeline/options.js";
import { resolveRunSettings, type IngestFilesOptions, type IngestReporter, type IngestRunReport } from "../ingest/run-plan.js";
import { resolveCanarySettings, type CanarySettings, type SettingsContext } from "./canary-settings.js";

export { IngestRefusedError } from "../ingest/run-plan.js";
export type { PolicyLabels } from "../documents/policy.js";

/** Options of `ingest`: those of `ingestFiles`, with the canary's settings instead of a pipeline. */
export interface IngestOptions extends Omit<IngestFilesOptions, "pipeline" | "reporter" | "unverifiedPipeline"> {
  /**
   * The canary: its pipeline options, a function giving them, or a command's settings (resolved after the targets, policy and
   * allowlist, so a run with several mistakes reports the CLI's one). `onDegraded` is ignored: a degraded record is held.
   */
  readonly canary: SecurityPipelineOptions | (() => SecurityPipelineOptions) | { readonly settings: CanarySettings; readonly context: SettingsContext };
}

/** What an ingest run tells its caller as it goes: `ingestFiles`' reporter, told what the run knows. */
export interface IngestVerbReporter extends Omit<IngestReporter, "start" | "finished"> {
  /** See IngestReporter.start; `canary` is false when only the structural layer runs, `stdin` true when the input is a stream. */
  readonly start?: (run: { readonly canary: boolean; readonly stdin: boolean }) => void | Promise<void>;
  /** The checks finished (see IngestReporter.finished): where the canary calls went, and whether a repeated id is held. */
  readonly finished?: (run: IngestRunReport, canary: CanaryTarget, uniqueIds: boolean) => void | Promise<void>;
}

/** The options of an ingest run's pipeline under `policy`: only those of the canary's the run uses (an unset one stays undefined). */
function ingestPipelineOptions(options: SecurityPipelineOptions, policy: IngestPolicy, allowing: boolean): SecurityPipelineOptions {
  const { mode, canaryModel, ollamaUrl, canaryPool, canaryTimeout, enableCanary, provider, baseUrl, apiKey, embedded, onWarning } = options;
  return Object.freeze({
    mode,
    canaryModel,
    ...(canaryPool !== undefined ? { canaryPool } : { ollamaUrl }),
    canaryTimeout,
    enableCanary,
    ...(provider === "openai" ? { provider, baseUrl, apiKey } : provider === "embedded" ? { provider, embedded } : {}),
    // One context window for the whole run: Ollama reloads the model whenever num_ctx changes. An
    // OpenAI-compatible server has a fixed window (its max_model_len), checked by the gate.
    ...(enableCanary && (provider === "ollama" || provider === undefined) ? { canaryNumCtx: canaryNumCtxForPolicy(policy) } : {}),
    // An allowlist admits only what the canary inspected too, so with one the canary also sees
    // text the structural layer blocked (docs/ingest.md, "False blocks: the allowlist").
    ...(allowing ? { skipCanaryIfStructuralBlocks: false } : {}),
    onWarning,
  });
}

/** Ingests a JSONL file (or stream) and publishes its manifest (and export) crash-safely; see `ingestFiles`. */
export async function ingest(options: IngestOptions, reporter: IngestVerbReporter = {}): Promise<IngestFilesResult> {
  const { canary, ...run } = options;
  const settings = await resolveRunSettings({
    ...run,
    reporter: { ...(reporter.progress ? { progress: reporter.progress } : {}), ...(reporter.warn ? { warn: reporter.warn } : {}) },
  });
  const canaryOptions = typeof canary === "function" ? canary() : "settings" in canary ? resolveCanarySettings(canary.settings, canary.context) : canary;
  const pipelineOptions = ingestPipelineOptions(canaryOptions, settings.policy, options.allow != null);
  // Refused now, as the pipeline would refuse them, so a bad option opens, reads and deletes nothing.
  resolvePipelineOptions(pipelineOptions);
  const steps = ingestSteps(Object.freeze({ ...settings, pipeline: { options: pipelineOptions } }));
  let next = await steps.next();
  while (next.done !== true) {
    const step = next.value;
    // Told inside a promise: a reporter that throws at once fails the run at this step too.
    const tell = async () =>
      step.step === "start"
        ? reporter.start?.({ canary: canaryOptions.enableCanary !== false, stdin: settings.source.kind === "stream" })
        : // The verb's own pipeline is one this library built, so the run reports its target.
          reporter.finished?.(step.report, step.report.canary as CanaryTarget, settings.limits.uniqueIds);
    next = await resumeAfter(steps, tell());
  }
  return next.value;
}
