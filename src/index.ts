// The public surface of little-canary. Everything a user can do from the CLI can be done from
// here; anything not exported is internal and may change.

// Pipeline
export { SecurityPipeline, type PipelineDescription } from "./pipeline/pipeline.js";
export type {
  SecurityPipelineOptions,
  EmbeddedCanaryOptions,
  ResolvedEmbeddedOptions,
  PipelineMode,
  DegradedPolicy,
  PipelineCallbacks,
  ResolvedPipelineOptions,
  CanaryPoolConfig,
  PipelineWarningCode,
} from "./pipeline/options.js";
export {
  PipelineVerdict,
  isGenuineVerdict,
  type LayerResult,
  type LayerMatch,
  type AnalysisSnapshot,
  type BlockedBy,
  type SegmentCoverage,
  type SegmentState,
} from "./pipeline/verdict.js";
export { SecurityAdvisory, type Severity } from "./pipeline/advisory.js";
export { AuditLogger, auditLabel, type AuditLine, type AuditLabel } from "./pipeline/audit.js";
export type { HealthReport } from "./pipeline/health.js";
export {
  VerdictJsonSchema,
  VerdictWireSchema,
  COVERAGES,
  type Coverage,
  type VerdictJson,
  type VerdictWire,
  type LayerJson,
  type LayerMatchJson,
  type AdvisoryJson,
} from "./documents/verdict-schema.js";
export type { CoverageReason } from "./pipeline/coverage.js";

// Structural filter
export {
  StructuralFilter,
  DEFAULT_MAX_INPUT_LENGTH,
  StructuralReasons,
  type FilterResult,
  type StructuralFilterOptions,
  type CustomPattern,
  type StructuralMatch,
  type MatchLocation,
} from "./structural/index.js";

// Canary probes and judges
export { OllamaCanaryProbe, DEFAULT_OLLAMA_URL, DEFAULT_CANARY_MODEL, type RunContextOutcome } from "./canary/ollama-probe.js";
export { CALIBRATION_PROBE_TEXT, LOWER_BOUND_MARGIN, type LoadedContext, type RunContext } from "./canary/run-context.js";
export { OpenAICanaryProbe } from "./canary/openai-probe.js";
export { apiKeyFromEnv } from "./canary/options.js";
export {
  probeOpenAIIdentity,
  tokenizeCount,
  type OpenAIServerIdentity,
  type OpenAIIdentityOutcome,
  type OpenAIIdentityFailure,
  type OpenAIIdentityOptions,
  type TokenizeMessages,
} from "./canary/openai-identity.js";
export { proveOpenAIContext, CanaryContextError, type OpenAIContextProof, type ContextNeed } from "./canary/openai-context-gate.js";
export { preflightCanary } from "./pipeline/canary-preflight.js";
export { confirmCanaryModel } from "./pipeline/canary-model.js";
export { CanaryModelError, type ServedModels } from "./canary/served-models.js";
export { requiredCanaryContext } from "./canary/context.js";
export { endpointOrigin, endpointClass, validateServiceUrl, type EndpointClass } from "./canary/endpoint.js";
export { DEFAULT_CANARY_SYSTEM_PROMPT, DEFAULT_CANARY_SYSTEM_PROMPT_SHA256 } from "./documents/system-prompt.js";
export type { CanaryProbe, CanaryResult, CanaryFailureCode } from "./canary/types.js";
/** The embedded canary (node-llama-cpp, an optional peer): the probe, its engine door, model files and `model pull` (docs/embedded.md). */
export {
  EmbeddedCanaryProbe,
  disposeEmbeddedCanaries,
  type EmbeddedCanaryProbeOptions,
  type EmbeddedIdentity,
  type EmbeddedOpenOutcome,
} from "./canary/embedded-probe.js";
export {
  EMBEDDED_ENGINE_VERSION,
  EmbeddedEngineMissingError,
  engineInstallLines,
  loadEmbeddedEngine,
  type EngineModuleLoader,
} from "./canary/embedded-engine.js";
export { embeddedRequiredContext, MAX_TOKENS_PER_CODE_POINT } from "./canary/embedded-context.js";
export { fileSha256, verifyModelFile } from "./canary/embedded-model-file.js";
export {
  DEFAULT_EMBEDDED_MODEL,
  PINNED_MODELS,
  MODEL_DIR_ENV,
  modelCacheDir,
  cachedModelPath,
  pinnedModel,
  type PinnedModel,
} from "./canary/embedded-models.js";
export { pullModel, ModelPullError, type PullModelOptions, type PullModelResult } from "./canary/embedded-download.js";
export {
  CanaryPool,
  CanaryPoolError,
  MAX_POOL_ATTEMPTS,
  TAKE_OUT_AFTER,
  isRetryableFailure,
  pinCanaryPool,
  type CanaryPoolOptions,
  type EndpointAttempt,
  type PoolMember,
} from "./canary/pool.js";
export { FINGERPRINT_PROBE_TEXTS, pinPoolIdentity, type PinOutcome, type PoolIdentity } from "./canary/pool-identity.js";
export { parsePoolEndpoint, parsePoolEndpoints, MAX_POOL_ENDPOINTS, type PoolEndpointSpec } from "./canary/pool-endpoints.js";
export { endpointLogWriter } from "./canary/pool-log.js";
export { OllamaJudge } from "./judge/ollama-judge.js";
export { OpenAIJudge } from "./judge/openai-judge.js";

// Behavioural analysis
export { BehavioralAnalyzer, analyzeResponse, type BehavioralAnalyzerOptions } from "./analysis/behavioral.js";
export { SIGNAL_CATEGORIES, HARD_BLOCK_CATEGORIES, DEFAULT_BLOCK_THRESHOLD } from "./analysis/signals.js";
export type { Analyzer, AnalysisResult, Signal, CanaryStatus, AnalysisMethod, AnalysisStatus } from "./analysis/types.js";

// Reading JSONL
export { readRecords, type ReadOutcome, type ReaderRefusal, type ReaderRefusalCode, type ReadOptions } from "./jsonl/read.js";
export {
  parseJsonLine,
  MAX_NESTING_DEPTH,
  SkippedValue,
  ANY_SHAPE,
  SKIP_SHAPE,
  type Shape,
  type ParseOptions,
  type JsonType,
} from "./core/parse-line.js";
export { fromBytes, fromFile, fromNodeStream } from "./jsonl/sources.js";
/** The one strict reader of whole documents (strict UTF-8, no byte order mark, no duplicate keys). */
export {
  readStrictDocument,
  decodeStrictText,
  type StrictDocumentResult,
  type StrictDocumentProblemCode,
  type StrictDocumentOptions,
  type StrictTextResult,
  type StrictTextProblemCode,
  type StrictProblem,
} from "./core/strict-document.js";
export {
  DEFAULT_READER_LIMITS,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MAX_ITEM_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  MAX_ITEM_BYTES_CEILING,
  MAX_LABEL_CHARS,
  LINE_SLACK,
  maxLineBytes,
  validateReaderLimits,
  type ReaderLimits,
} from "./documents/reader-limits.js";
export type { RawRecord, RecordProblem } from "./jsonl/record.js";

/** Checking one text: what `little-canary check` runs (read stdin strictly, screen, exit code). */
export { checkText, checkExitCode, MAX_CHECK_INPUT_BYTES, type CheckTextOptions, type CheckTextResult } from "./verbs/check.js";

// Screening batches
export { screenBatch, screenItems, serializeBatch, batchExitCode, type ScreenOptions } from "./screen/screen-batch.js";
export { admitScreenInputs, BatchRefusedError, type ScreenInput, type ScreenItem } from "./screen/admit.js";
export { batchState } from "./screen/state.js";
/** File-based screening: what `little-canary screen` runs (read strictly, admit, screen). */
export { screenFile, InputRefusedError, type ScreenFileOptions, type ScreenFileResult } from "./screen/files.js";
export { summarizeBatch, type BatchSummary } from "./screen/tally.js";
export type { ItemVerdictCache } from "./screen/check-item.js";
/**
 * RAG adapters' framework-free core (docs/rag.md): a verified export's admitted records, read
 * from the bytes that were verified; documents screened as ingest records. The framework
 * adapters themselves are the `little-canary/langchain` and `little-canary/llamaindex` subpaths.
 */
export { loadVerifiedExport, ExportVerificationError, type VerifiedExport, type VerifiedExportOptions } from "./rag/verified-export.js";
export { screenDocumentRecords, type ScreenDocumentsOptions, type ScreenedDocuments, type HeldDocument, type DocumentFields } from "./rag/screen-documents.js";
export { flattenMetadata, MAX_METADATA_DEPTH } from "./rag/flatten-metadata.js";
export { PROVENANCE_KEY, PROVENANCE_PREFIX, provenanceOf, flatProvenance, type Provenance } from "./rag/provenance.js";
/** CI reports of a screen or ingest run: SARIF 2.1.0, JUnit XML, GitHub annotations and job summary (docs/ci.md). */
export { screenWithReports, type ScreenWithReportsOptions } from "./report/screen-reports.js";
export { CiReports, wantsReports, type CiReportOptions, type CiRunFacts, type GithubOutput } from "./report/ci-reports.js";
export { REPORT_RULES, RULE_LIST, type ReportRule, type ReportLevel, type RuleKind } from "./report/rules.js";
export { idLabel, reportItemFromBatch, reportItemFromRecord, resultMessage, type ReportItem, type ReportMatch } from "./report/report-item.js";
export { SARIF_SCHEMA_URI, SarifLog, artifactUri, type SarifRunFacts } from "./report/sarif.js";
export { JunitReport, xmlEscape, type JunitCounts } from "./report/junit.js";
export {
  GithubReport,
  MAX_ANNOTATIONS,
  SUMMARY_ROWS,
  annotationLine,
  escapeCommandData,
  escapeCommandProperty,
  escapeMarkdown,
  type OutcomeCounts,
} from "./report/github.js";
export { mapOrdered, type MapOrderedOptions } from "./pipeline/map-ordered.js";
export {
  CanaryCircuitBreaker,
  CIRCUIT_OPEN_ERROR,
  DEFAULT_MAX_CANARY_FAILURES,
  observeCanary,
  type BreakerTrip,
  type CanaryObservation,
  type CanaryOutageReason,
} from "./pipeline/circuit-breaker.js";

// Ingest
export {
  ingestRecords,
  admitIngestInputs,
  findDuplicateIds,
  readerLimitsForPolicy,
  type DuplicateId,
  type IngestOptions,
  type IngestRun,
  type IngestInput,
} from "./ingest/run.js";
/**
 * File-based ingest: `ingestFiles` reads a JSONL file (or stream), runs the checks and publishes
 * the manifest (and export) crash-safely, holding the publication locks from pre-flight to the
 * end and rolling back on any failure or abort before the commit. It is what
 * `little-canary ingest` runs; see docs/ingest.md ("Library").
 */
export {
  ingestFiles,
  canaryNumCtxForPolicy,
  IngestRefusedError,
  type IngestFilesOptions,
  type IngestFilesResult,
  type IngestReporter,
  type RecordPrefetchOptions,
  RECORD_PREFETCH_MIN_BYTES,
} from "./ingest/files.js";
/** What a run's record prefetch did (`IngestFilesOptions.recordPrefetch.onStats`; docs/ingest.md, "Warm runs"). */
export type { RecordPrefetchStats } from "./ingest/record-prefetch.js";
/**
 * The false-block allowlist of `ingest --allow FILE`: `parseAllowlist` reads an allow file's
 * bytes strictly (a list of `{sha256, scope, reason, by}`), `readAllowlistFile` reads one from
 * disk within its size bound; pass either result (or the path) as `ingestFiles({ allow })`.
 * Only records held for detections alone are ever admitted, by content hash, never by path or
 * id; see docs/ingest.md ("False blocks: the allowlist").
 */
export {
  parseAllowlist,
  AllowEntrySchema,
  AllowFileSchema,
  MAX_ALLOW_FILE_BYTES,
  MAX_ALLOW_ENTRIES,
  type Allowlist,
  type AllowEntry,
  type AllowScope,
} from "./documents/allowlist.js";
export { readAllowlistFile } from "./ingest/allow-file.js";
export { runContextGate, IngestGateError, type GateResult, type CheckingPipeline } from "./ingest/gate.js";
export { STRICT_V1, resolvePolicy, IngestPolicySchema, type IngestPolicy, type PolicyOverrides } from "./documents/policy.js";
export { ingestExitCode, type IngestOutcomeCode } from "./ingest/exit-code.js";
export { classifySegmentVerdict } from "./documents/classify.js";
export { planSegments, type SegmentPlan, type PlannedSegment } from "./documents/segment-plan.js";
export { segmentSpans } from "./documents/segment-spans.js";
export { metadataMaterial } from "./documents/segment-material.js";

// Documents
export {
  IngestManifestSchema,
  IngestExportSchema,
  BatchDocumentSchema,
  MANIFEST_SCHEMA,
  EXPORT_SCHEMA,
  BATCH_SCHEMA,
  HOLD_REASONS,
  type IngestManifest,
  type IngestExport,
  type BatchDocument,
  type ManifestRecord,
} from "./documents/schemas.js";
export { canonicalJson, canonicalBytes, CanonicalJsonError } from "./core/canonical.js";
export { buildManifest, buildExport } from "./documents/manifest-build.js";
export { sha256Hex } from "./core/hash.js";
export { materialSha256 } from "./documents/material-hash.js";
export type { CanonicalDocument } from "./documents/manifest-build.js";

// Publication and verification
export {
  publish,
  removePreviousPair,
  lockTargets,
  type PublishRequest,
  type PublishOptions,
  type PublishResult,
  type PublishDocuments,
} from "./publish/publish.js";
export { preflightTargets, checkTargetDirectories, PublishError, type PublishTargets } from "./publish/targets.js";
export { acquirePublicationLock, acquireTargetLocks, STALE_LOCK_MS, type PublicationLock } from "./publish/lock.js";
export { nodePublishFs, type PublishFs, type FileIdentity } from "./publish/fs.js";
/**
 * Verification of a published pair. `verifyFiles` is the easy path: it reads both files
 * strictly (duplicate keys, UTF-8, size and memory bounds), checks the pin and returns every
 * problem as data. `verifyExport`/`verifyManifestOnly` take the documents; pass them as the
 * bytes you read (Uint8Array) so duplicate keys are seen.
 */
export { verifyFiles, type VerifyFilesOptions, type VerifyFilesResult } from "./verify/verify-files.js";
export { verifyExport, verifyManifestOnly, type VerifyOptions } from "./verify/verify-export.js";
export { MAX_DOCUMENT_BYTES, MAX_DOCUMENT_VALUES } from "./core/read-document.js";
export {
  problemsToShow,
  STRUCTURAL_PROBLEM_CODES,
  VERIFY_PROBLEM_CODES,
  type VerifyNote,
  type VerifyNoteCode,
  type VerifyProblem,
  type VerifyProblemCode,
} from "./verify/problems.js";
/**
 * Sharded runs (`ingest --shard K/N`, docs/shards.md): `shardRange` is the line range of shard
 * K of N; `buildShardIndex` verifies every shard's pair, checks that the shards tile one input
 * exactly once and writes the canonical `little-canary-ingest-index/v1` document;
 * `verifyShardIndex` re-checks an index (against a pinned SHA-256) and every pair it lists.
 */
export {
  buildShardIndex,
  parseShardPairArgument,
  type BuildShardIndexOptions,
  type BuildShardIndexResult,
  type ShardPairArgument,
} from "./verbs/index.js";
export { verifyShardIndex, normalizeIndexPin, type VerifyShardIndexOptions, type VerifyShardIndexResult } from "./verify/shard-index.js";
export { SHARD_INDEX_PROBLEM_CODES, type ShardIndexProblem, type ShardIndexProblemCode } from "./verify/shard-pairs.js";
export { INDEX_SCHEMA, IngestIndexSchema, type IngestIndex, type IndexShard } from "./documents/ingest-index.js";
export {
  MAX_SHARDS,
  parseShardSpec,
  shardRange,
  ManifestShardSchema,
  type ShardSpec,
  type LineRange,
  type ManifestShard,
} from "./documents/shard.js";

// Loopback service and demo
export { createServer, queueState, type ServeOptions } from "./server/create-server.js";
export { listenLoopback, closeGracefully, ServerBindError } from "./server/lifecycle.js";
export { MAX_REQUEST_BYTES } from "./server/limits.js";
export { runService, type RunServiceOptions } from "./server/run-service.js";
export { runReplay, type ReplayOptions } from "./demo/replay.js";
export { runLive, type LiveOptions } from "./demo/live.js";
export { runDemoCommand, type DemoCommandOptions, type DemoCommandResult } from "./demo/command.js";
export { DemoArgumentError } from "./demo/live-endpoint.js";
export { parseCapture, capturePayloadSha256, sealCapture, CaptureSchema, type Capture } from "./demo/capture.js";
export { captureFromLive } from "./demo/record.js";
export { importForeignCapture } from "./demo/import.js";
export type { DemoOutcome, CommandStatus } from "./demo/outcome.js";

// Host integrations
export {
  classifyForHost,
  classifyVerdict,
  unscreenedForHost,
  parseFailureMode,
  FAILURE_MODE_ENV,
  REASON_MISSING_FIELDS,
  REASON_NOT_EXERCISED,
  type HostDecision,
  type HostClassification,
  type FailureMode,
  type UnscreenedCause,
} from "./integrations/classify.js";
export {
  littleCanaryInputGuardrail,
  extractUserText,
  type GuardrailChecker,
  type LittleCanaryInputGuardrail,
  type LittleCanaryGuardrailOptions,
  type LittleCanaryGuardrailOutput,
  type LittleCanaryGuardrailInfo,
  type GuardrailCoverage,
} from "./integrations/openai-agents.js";
export { HostCapabilityMatrixSchema, renderIntegrationsDoc, type HostCapabilityMatrix } from "./integrations/capability-matrix.js";

// Evaluation
export { runEval, type EvalOptions, BackendUnavailableError, EvalInterruptedError, DEFAULT_EVAL_TIMEOUT_SECONDS } from "./eval/run.js";
export { summarize, type EvalSummary } from "./eval/summary.js";
export { loadCorpora, loadIdsFile, selectCases, CorpusError, type EvalCase } from "./eval/corpus.js";
export { rate, wilsonInterval, type Rate } from "./eval/rates.js";
export { EVAL_SCHEMA, type RunHeader } from "./eval/records.js";
export { renderReport } from "./eval/report.js";
export type { EvalMode, Outcome } from "./eval/score.js";

// Verdict cache and the run id index
export {
  pipelineIdentity,
  identityKey,
  cacheIdentity,
  CACHE_IDENTITY_FORMAT,
  type CanaryIdentity,
  type CacheIdentity,
  type CheckScope,
  type IdentityOptions,
  type IdentityOutcome,
  type RegexAnalysisIdentity,
  type JudgeAnalysisIdentity,
} from "./cache/identity.js";
export {
  VerdictCache,
  VERDICT_CACHE_SCHEMA,
  VERDICT_CACHE_SCHEMA_VERSION,
  DEFAULT_CACHE_BUSY_TIMEOUT_MS,
  type VerdictCacheOpenOptions,
  type CachePut,
  type CachedVerdict,
  type CachedState,
  type CacheStats,
  type IdentityStats,
  type PruneOptions,
} from "./cache/verdict-cache.js";
export { IdIndex, idHash, withIdIndex, type IdIndexOptions } from "./cache/id-index.js";
export { cacheStats, cachePrune, parseDuration, type CacheStatsOptions, type CachePruneOptions, type CachePruneResult } from "./verbs/cache.js";
export { CacheFileError, UncacheableVerdictError, type CacheFileProblem } from "./cache/errors.js";
export { STRUCTURAL_RULES_VERSION } from "./structural/rules.js";
export { REGEX_ANALYZER_VERSION } from "./analysis/behavioral.js";
export { JUDGE_RULES_VERSION } from "./judge/judge-verdict.js";

// Configuration and errors
export { resolveCanaryTimeout, DEFAULT_CANARY_TIMEOUT_SECONDS, TIMEOUT_ENV } from "./canary/timeout.js";
export { LittleCanaryError, UsageError, ConfigError, type LittleCanaryErrorCode } from "./core/errors.js";
export { VERSION } from "./core/version.js";
