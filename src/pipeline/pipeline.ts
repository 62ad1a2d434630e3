// SecurityPipeline: the checks of base.ts with the canary backends this library builds from the
// options (its probe, Ollama, OpenAI-compatible, a pool or embedded; its analyzer, regex or an LLM
// judge), built at construction so `probe` and `analyzer` are there at once. The API key is passed
// through to the client and kept nowhere else. The instance is frozen after construction, so no
// caller can swap its probe, analyzer or `check`: callers that trust a pipeline's verdicts without
// re-checking them (the ingest context gate, the verdict cache's identity) start from
// `isGenuinePipeline`, and so does what a pipeline's checks cost the canary (`canaryProfile`, read
// once per batch run so the checks certain not to call it still run after the breaker opened).
import { BehavioralAnalyzer } from "../analysis/behavioral.js";
import type { Analyzer } from "../analysis/types.js";
import { OllamaCanaryProbe } from "../canary/ollama-probe.js";
import { OpenAICanaryProbe } from "../canary/openai-probe.js";
import type { CanaryProbe } from "../canary/types.js";
import { CanaryPool } from "../canary/pool.js";
import { EmbeddedCanaryProbe } from "../canary/embedded-probe.js";
import { OllamaJudge, requiredJudgeContext } from "../judge/ollama-judge.js";
import { OpenAIJudge } from "../judge/openai-judge.js";
import type { ResolvedPipelineOptions } from "../canary/pipeline-options.js";
import { PipelineBase } from "./base.js";
import { buildHealthReport, type HealthReport } from "./health.js";
import type { SecurityPipelineOptions } from "./options.js";

/** The screening pipeline: the structural filter, then the canary probe and its analysis; every verdict says what was detected and how much was inspected. */
export class SecurityPipeline extends PipelineBase {
  declare readonly probe: CanaryProbe;
  declare readonly analyzer: Analyzer;

  constructor(options: SecurityPipelineOptions = {}) {
    super(options, (resolved, systemPrompt) => ({
      probe: buildProbe(resolved, options, systemPrompt),
      analyzer: buildAnalyzer(resolved, options, systemPrompt),
    }));
  }

  /** Readiness of the pipeline and its backends. */
  async healthCheck(): Promise<HealthReport> {
    return buildHealthReport(this);
  }
}

type Transport = { fetch?: typeof fetch };

const transportOf = (options: SecurityPipelineOptions): Transport => (options.fetch ? { fetch: options.fetch } : {});
const apiKeyOf = (options: SecurityPipelineOptions): { apiKey?: string } => (options.apiKey ? { apiKey: options.apiKey } : {});

function buildProbe(resolved: ResolvedPipelineOptions, options: SecurityPipelineOptions, systemPrompt: string): CanaryProbe {
  const common = {
    model: resolved.canaryModel,
    systemPrompt,
    timeoutSeconds: resolved.canaryTimeout,
    maxTokens: resolved.canaryMaxTokens,
    temperature: resolved.temperature,
    seed: resolved.seed,
    ...transportOf(options),
  };
  if (resolved.embedded !== null) {
    const e = resolved.embedded;
    const { fetch: _unused, ...settings } = common;
    return new EmbeddedCanaryProbe({
      ...settings,
      modelPath: e.modelPath,
      sha256: e.sha256,
      maxInputLength: resolved.maxInputLength,
      contextSize: e.contextSize,
      sequences: e.sequences,
      gpu: e.gpu,
      pulled: e.pulled,
      ...(e.threads !== undefined ? { threads: e.threads } : {}),
      ...(options.embedded?.loader ? { loader: options.embedded.loader } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }
  const one = (url: string, checkReplyModel: boolean): OpenAICanaryProbe | OllamaCanaryProbe =>
    resolved.provider === "openai"
      ? new OpenAICanaryProbe({ ...common, baseUrl: url, ...apiKeyOf(options), checkReplyModel })
      : new OllamaCanaryProbe({ ...common, ollamaUrl: url, numCtx: resolved.canaryNumCtx, checkReplyModel });
  const pool = options.canaryPool;
  if (pool === undefined) return one(resolved.provider === "openai" ? resolved.baseUrl : resolved.ollamaUrl, false);
  // Any pool endpoint may be a router standing for several replicas: every reply's model is checked.
  return new CanaryPool({
    members: pool.endpoints.map((endpoint) => ({ probe: one(endpoint.url, true), concurrency: endpoint.concurrency })),
    ...(pool.onWarning ? { onWarning: pool.onWarning } : {}),
    ...(pool.onAttempt ? { onAttempt: pool.onAttempt } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
}

function buildAnalyzer(resolved: ResolvedPipelineOptions, options: SecurityPipelineOptions, systemPrompt: string): Analyzer {
  if (resolved.judgeModel === null) return new BehavioralAnalyzer({ blockThreshold: resolved.blockThreshold, systemPrompt });
  const common = { model: resolved.judgeModel, timeoutSeconds: resolved.judgeTimeout, seed: resolved.seed, ...transportOf(options) };
  return resolved.provider === "openai"
    ? new OpenAIJudge({ ...common, baseUrl: resolved.baseUrl, ...apiKeyOf(options) })
    : new OllamaJudge({
        ...common,
        ollamaUrl: resolved.ollamaUrl,
        // Sized like the canary's window (and only when the canary's is sent): the judge reads the
        // checked text and the canary's reply, and Ollama would cut an over-long prompt silently.
        numCtx: resolved.canaryNumCtx === null ? null : requiredJudgeContext(resolved.maxInputLength, resolved.canaryMaxTokens),
      });
}

/** True for a frozen instance of SecurityPipeline itself (a subclass or a look-alike is not genuine). */
export function isGenuinePipeline(pipeline: unknown): pipeline is SecurityPipeline {
  return pipeline instanceof SecurityPipeline && Object.getPrototypeOf(pipeline) === SecurityPipeline.prototype && Object.isFrozen(pipeline);
}

/**
 * `canaryCalls` is false only for a library pipeline with the canary disabled (structural checks
 * only). `skipsCanaryOn` tells whether a check of a text is certain not to call the canary (none
 * at all, or a structural block that ends the check first); null when that cannot be known.
 */
export interface CanaryProfile {
  readonly canaryCalls: boolean;
  readonly skipsCanaryOn: ((text: string) => boolean) | null;
}

/** The canary profile of `pipeline`: exact for a genuine pipeline, "always calls" for anything else. */
export function canaryProfile(pipeline: unknown): CanaryProfile {
  // Only a frozen pipeline of this library's own class is known to behave as its options say.
  if (!isGenuinePipeline(pipeline)) return { canaryCalls: true, skipsCanaryOn: null };
  const o = pipeline.options;
  if (!o.enableCanary) return { canaryCalls: false, skipsCanaryOn: () => true };
  if (!o.enableStructuralFilter || !o.skipCanaryIfStructuralBlocks || o.mode === "advisory") return { canaryCalls: true, skipsCanaryOn: null };
  const filter = pipeline.structuralFilter;
  return { canaryCalls: true, skipsCanaryOn: (text) => filter.check(text).blocked };
}
