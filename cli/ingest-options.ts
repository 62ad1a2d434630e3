// What the flags of `little-canary ingest` configure: the run options, the policy overrides and
// the pipeline (built once the policy is known, because its segment size sets the canary's
// num_ctx). Imported only when ingest runs.
import { canaryNumCtxForPolicy, type IngestFilesOptions } from "../src/ingest/files.js";
import type { IngestPolicy, PolicyOverrides } from "../src/documents/policy.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import type { IngestFlags } from "./ingest-flags.js";
import type { CliIo } from "./io.js";
import { pipelineOptionsFromFlags } from "./options.js";
import { reportOptionsFromFlags } from "./report-flags.js";

/** The run options of `ingestFiles` the flags set (concurrency, lock wait, breaker, ids, cache, shard). */
export function runOptionsFromFlags(
  flags: IngestFlags,
  io: CliIo,
): Pick<IngestFilesOptions, "concurrency" | "waitLockSeconds" | "maxCanaryFailures" | "uniqueIds" | "cache" | "shard" | "reports" | "allow"> {
  return {
    concurrency: flags.concurrency,
    waitLockSeconds: flags.waitLock ?? 0,
    ...(flags.maxCanaryFailures !== undefined ? { maxCanaryFailures: flags.maxCanaryFailures } : {}),
    uniqueIds: flags.uniqueIds === true,
    cache: typeof flags.cache === "string" ? flags.cache : null,
    shard: flags.shard ?? null,
    allow: flags.allow ?? null,
    reports: reportOptionsFromFlags(flags, io),
  };
}

/** The strict/v1 overrides the flags ask for (an unset flag keeps the policy's value). */
export function policyFromFlags(flags: IngestFlags): PolicyOverrides {
  return {
    segment_chars: flags.segmentChars,
    segment_overlap: flags.segmentOverlap,
    max_segments: flags.maxSegments,
    max_item_bytes: flags.maxItemBytes,
    max_items: flags.maxItems,
    max_total_bytes: flags.maxTotalBytes,
    max_metadata_keys: flags.maxMetadataKeys,
    max_metadata_value_chars: flags.maxMetadataValueChars,
  };
}

/** The pipeline from the canary flags, once the policy is known (its segment size sets num_ctx). */
export function pipelineFromFlags(flags: IngestFlags, io: CliIo, policy: IngestPolicy): SecurityPipeline {
  const options = pipelineOptionsFromFlags(flags, io);
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
  // An allowlist admits only what the canary inspected too, so with --allow the canary also
  // sees text the structural layer blocked (docs/ingest.md, "False blocks: the allowlist").
  const allowing = flags.allow !== undefined ? { skipCanaryIfStructuralBlocks: false } : {};
  return new SecurityPipeline({
    mode,
    canaryModel,
    ...endpoint,
    canaryTimeout,
    enableCanary,
    ...backend,
    ...(enableCanary ? numCtx : {}),
    ...allowing,
    ...(onWarning !== undefined ? { onWarning } : {}),
  });
}
