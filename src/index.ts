// The public surface of little-canary, by concept (docs/api.md lists each name and what it is
// for). Everything a user can do from the CLI can be done from here: one call per command.
// Anything not exported here (or from a subpath entry of package.json) is internal and may
// change; tests and benches import internals from their module paths, never through this file.

// Checking texts: the pipeline, its options and its verdicts
export { SecurityPipeline } from "./pipeline/pipeline.js";
export type { SecurityPipelineOptions, PipelineCallbacks } from "./pipeline/options.js";
export type { EmbeddedCanaryOptions, CanaryPoolConfig } from "./canary/pipeline-options.js";
export { PipelineVerdict } from "./pipeline/verdict.js";
export type { HealthReport } from "./pipeline/health.js";
export { VerdictWireSchema, type VerdictWire, type VerdictJson, type Coverage } from "./documents/verdict-schema.js";
export { StructuralFilter } from "./structural/filter.js";
export type { CustomPattern } from "./structural/custom.js";
export { parsePoolEndpoints } from "./canary/pool-endpoints.js";
export { pullModel, type PullModelOptions } from "./canary/embedded-download.js";
export { disposeEmbeddedCanaries } from "./canary/embedded-probe.js";

// One call per command: check, screen, ingest, verify, index, cache, serve, demo, eval
export { checkText } from "./verbs/check.js";
/** What `checkText` takes (the text or a stream to read strictly, and how to build the pipeline) and what it returns (the verdict and whether the canary was out). */
export type { CheckTextOptions, CheckTextResult } from "./verbs/check.js";
export { screenBatch, type ScreenOptions } from "./screen/screen-batch.js";
export { screenFile, type ScreenFileOptions, type ScreenFileResult } from "./screen/files.js";
export { screenWithReports } from "./report/screen-reports.js";
export { ingestRecords, type IngestOptions, type IngestRun } from "./ingest/run.js";
export { ingestFiles, canaryNumCtxForPolicy, type IngestFilesResult } from "./ingest/files.js";
export type { IngestFilesOptions, IngestReporter } from "./ingest/run-plan.js";
export { readAllowlistFile } from "./ingest/allow-file.js";
export { verifyFiles } from "./verify/verify-files.js";
/** What `verifyFiles` takes (the two paths, the pin, the bounds) and what it returns (every problem and note as data). */
export type { VerifyFilesOptions, VerifyFilesResult } from "./verify/verify-files.js";
export { verifyExport, type VerifyOptions } from "./verify/verify-export.js";
export type { VerifyProblem } from "./verify/problems.js";
export { buildShardIndex, type BuildShardIndexOptions } from "./verbs/build-shard-index.js";
export { verifyShardIndex } from "./verify/shard-index.js";
export { shardRange } from "./documents/shard.js";
export { VerdictCache } from "./cache/verdict-cache.js";
export { cacheStats, cachePrune } from "./verbs/cache.js";
export { createServer, type ServeOptions } from "./server/create-server.js";
export { listenLoopback, closeGracefully, ServerBindError } from "./server/lifecycle.js";
export { runService, type RunServiceOptions } from "./server/run-service.js";
export { runDemoCommand } from "./demo/command.js";
export { runEval } from "./eval/run.js";

// Policy and documents: what a run is held to and what it writes
export { STRICT_V1, type IngestPolicy, type PolicyOverrides } from "./documents/policy.js";
export {
  IngestManifestSchema,
  IngestExportSchema,
  type IngestManifest,
  type IngestExport,
  type ManifestRecord,
  type BatchDocument,
} from "./documents/schemas.js";
export {
  IngestManifestV2Schema,
  IngestExportV2Schema,
  IngestManifestV3Schema,
  IngestExportV3Schema,
  manifestFacts,
  type IngestManifestV2,
  type ManifestDocument,
} from "./documents/manifest-v2.js";
export { IngestIndexSchema, type IngestIndex } from "./documents/ingest-index.js";
/** Reading a published document the way the verifier does: strictly, then hashing its bytes and each record's material. */
export { readStrictDocument } from "./core/strict-document.js";
export { sha256Hex } from "./core/hash.js";
export { materialSha256 } from "./documents/material-hash.js";
export { nodePublishFs, type PublishFs } from "./publish/fs.js";

// Host integrations (the whole set is the `little-canary/integrations` entry)
export { classifyForHost } from "./integrations/classify.js";
export { littleCanaryInputGuardrail } from "./integrations/openai-agents.js";

// Errors and the version
export { LittleCanaryError, UsageError, ConfigError, AfterPublicationError, type LittleCanaryErrorCode } from "./core/errors.js";
export { VERSION } from "./core/version.js";
