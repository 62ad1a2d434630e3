// The flags of `little-canary ingest` and what they configure: the policy overrides and the
// pipeline (built once the policy is known, because its segment size sets the canary's num_ctx).
import { reportOptionsFromFlags, type ReportFlags } from "./report-flags.js";
import { canaryNumCtxForPolicy, type IngestFilesOptions } from "../src/ingest/files.js";
import type { ShardSpec } from "../src/documents/shard.js";
import type { IngestPolicy, PolicyOverrides } from "../src/documents/policy.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import type { CliIo } from "./io.js";
import { pipelineOptionsFromFlags, type CanaryFlags } from "./options.js";

export interface IngestFlags extends CanaryFlags, ReportFlags {
  manifest: string;
  export?: string;
  overwrite?: boolean;
  json?: boolean;
  segmentChars?: number;
  segmentOverlap?: number;
  maxSegments?: number;
  maxItemBytes?: number;
  maxItems?: number;
  maxTotalBytes?: number;
  maxMetadataKeys?: number;
  maxMetadataValueChars?: number;
  concurrency: number;
  /** Seconds to wait for another run's publication lock on the same manifest (default 0). */
  waitLock?: number;
  /** Consecutive unreachable/timeout canary failures that stop the canary calls (0: never). */
  maxCanaryFailures?: number;
  /** Hold a record whose id repeats an earlier record's id. */
  uniqueIds?: boolean;
  /** `--cache PATH` (a string) or `--no-cache` (false). */
  cache?: string | false;
  /** `--shard K/N`: only the K-th (0-based) of N contiguous line ranges of the input. */
  shard?: ShardSpec;
  /** `--allow FILE`: the false-block allowlist. */
  allow?: string;
}

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
