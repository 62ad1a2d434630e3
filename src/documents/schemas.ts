// zod schemas of the documents ingest and screen write (batch document, manifest, export), the
// single source of truth: TypeScript types are inferred from them, `schemas/*.schema.json` is
// generated from them, and every document passes its schema before it is hashed or written.
// Objects are strict (no unknown keys); numbers are finite (zod 4 rejects ±Infinity and NaN).
import { z } from "zod";
import { IngestPolicySchema } from "./policy.js";
import { COVERAGES, type Coverage, VerdictJsonSchema } from "./verdict-schema.js";
import { MetadataMapSchema } from "./metadata-map.js";
import { ManifestShardSchema } from "./shard.js";
import { AllowEntrySchema, MAX_ALLOW_ENTRIES } from "./allowlist.js";
import { HOLD_REASONS, SEGMENT_STATES, type HoldReason } from "./states.js";
import { count, sha256 } from "./fields.js";

/** The schema name of the ingest manifest. */
export const MANIFEST_SCHEMA = "little-canary-ingest-manifest/v1";
/** The schema name of the ingest export. */
export const EXPORT_SCHEMA = "little-canary-ingest-export/v1";
/** The schema name of the batch document `screen` prints. */
export const BATCH_SCHEMA = "little-canary-batch/v1";

// The vocabularies live in states.ts so that allowlist.ts, which this file imports, can use them
// without importing this file back.
export { HOLD_REASONS, type HoldReason, type SegmentState } from "./states.js";

/** `not_checked`: some planned part of the record was never inspected and nothing was detected in the rest. */
const DETECTIONS = ["none", "flag", "block", "not_checked"] as const;
export type Detection = (typeof DETECTIONS)[number];
// One vocabulary for a record's coverage and a verdict's (verdict-schema.ts defines it).
export type { Coverage };
const ADMISSIONS = ["admitted", "held"] as const;

/** Malformed records have no digest of their text: `""`. */
const sha256OrEmpty = z.union([sha256, z.literal("")]);
/** UTC, millisecond precision, `Z` suffix: what `Date.prototype.toISOString` produces. */
export const TimestampSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
/** The fields every per-record entry starts with: its position in the input and its labels. */
const RECORD_PLACE = { index: count, id: z.string().nullable(), source: z.string().nullable() };
/**
 * Present (`reused` always `true`) only when the verdict came from the verdict cache (`ingest` or
 * `screen --cache`) instead of a check in this run, with when the original check was made; the
 * verdict, latency and token count are then the original check's.
 */
const REUSED = { reused: z.literal(true).optional(), checked_at: TimestampSchema.optional() };

export const PipelineInfoSchema = z.strictObject({
  mode: z.enum(["block", "advisory", "full"]),
  provider: z.string().nullable(),
  canary_model: z.string().nullable(),
  /** Digest of the canary model as Ollama lists it in /api/tags (the only place it gives it). */
  canary_model_digest: z.string().nullable(),
  analysis_method: z.enum(["judge", "regex"]),
  structural_filter: z.boolean().nullable(),
  canary_enabled: z.boolean().nullable(),
  canary_num_ctx: z.int().min(1).nullable(),
  canary_context_length: z.int().min(1).nullable(),
  canary_context_verified: z.boolean(),
  /**
   * Present only for an OpenAI-compatible canary (vLLM): what the server reported before any
   * check. `prompt_count` says how each prompt was measured: `tokenize` (the server's exact
   * count) or `conservative_bound` (the server offers no /tokenize).
   */
  canary_server: z
    .strictObject({
      served_model: z.string(),
      root: z.string().nullable(),
      max_model_len: z.int().min(1),
      system_fingerprint: z.string().nullable(),
      prompt_count: z.enum(["tokenize", "conservative_bound"]),
    })
    .optional(),
  /**
   * Present only for a run against a canary pool: the SHA-256 over the replies of every endpoint
   * to the fixed fingerprint probes (they all agreed) and how many probes were sent. The same for
   * one endpoint or many, so the manifest does not depend on the pool's size.
   */
  canary_fingerprint: z.strictObject({ sha256, probes: z.int().min(1) }).optional(),
  /**
   * Present only for an embedded canary (node-llama-cpp): the model is identified by its file's
   * SHA-256 (`identity: "file-sha256"`), with the engine's version and the context size (tokens
   * per sequence) every check ran in.
   */
  canary_embedded: z
    .strictObject({
      identity: z.literal("file-sha256"),
      sha256,
      engine: z.literal("node-llama-cpp"),
      engine_version: z.string().min(1).max(64),
      context_size: z.int().min(1),
    })
    .optional(),
});

const ManifestSegmentSchema = z.strictObject({
  kind: z.enum(["metadata", "text"]),
  index: count,
  start: count,
  end: count,
  sha256,
  state: z.enum(SEGMENT_STATES),
  exercised: z.boolean(),
  verdict: VerdictJsonSchema.nullable(),
  error: z.string().nullable(),
  latency: z.number().min(0).nullable(),
  /**
   * Prompt tokens the backend reported evaluating for this segment, when it reported any:
   * Ollama's `prompt_eval_count`, or `usage.prompt_tokens` of an OpenAI-compatible server.
   */
  prompt_eval_count: count.nullable(),
  ...REUSED,
});

export const ManifestRecordSchema = z.strictObject({
  ...RECORD_PLACE,
  id_sha256: sha256.nullable(),
  source_sha256: sha256.nullable(),
  sha256: sha256OrEmpty,
  material_sha256: sha256OrEmpty,
  length: count,
  metadata_key_count: count,
  metadata_keys: z.array(z.string()).nullable(),
  detection: z.enum(DETECTIONS),
  coverage: z.enum(COVERAGES),
  admission: z.enum(ADMISSIONS),
  hold_reasons: z.array(z.enum(HOLD_REASONS)),
  detection_signals: z.array(z.string()).max(32),
  detail: z.string().nullable(),
  segments_total: count,
  segments_checked: count,
  chars_total: count,
  chars_covered: count,
  segments: z.array(ManifestSegmentSchema),
  /**
   * Present (always "allowlist") only for a record held for detections alone and admitted
   * because `ingest --allow` listed its hash; `hold_reasons` is then empty while `detection`
   * and the segments keep what was detected.
   */
  admission_basis: z.literal("allowlist").optional(),
  /** With `admission_basis`: the allow-file entries that admitted the record. */
  allowlist_entries: z.array(AllowEntrySchema).min(1).max(MAX_ALLOW_ENTRIES).optional(),
});

const reasonCounts = z.strictObject(Object.fromEntries(HOLD_REASONS.map((r) => [r, count])) as Record<HoldReason, typeof count>);

export const ManifestCountsSchema = z.strictObject({
  admitted: count,
  held: count,
  by_reason: reasonCounts,
  detection: z.strictObject({ none: count, flag: count, block: count, not_checked: count }),
  coverage: z.strictObject({ complete: count, partial: count, none: count }),
  /** Records whose id equals an earlier record's id (each repeat counted once). */
  duplicate_ids: count,
  /** Present only when some record was admitted by the allowlist: how many (they count as admitted too). */
  allowlisted: z.int().min(1).optional(),
});

const ManifestRunSchema = z.strictObject({
  status: z.literal("complete"),
  records_total: count,
  checks_performed: count,
  input_sha256: sha256.nullable(),
  export_requested: z.boolean(),
  /**
   * Present only when the run used a verdict cache: segments whose verdict was reused (hits)
   * and segments looked up and not found, then checked (misses).
   */
  cache: z.strictObject({ hits: count, misses: count }).optional(),
  /**
   * Present only for a sharded run (`ingest --shard K/N`): the shard and its range of the
   * input's lines; `input_sha256` is then the SHA-256 of the whole input, not of the range.
   */
  shard: ManifestShardSchema.optional(),
  /** Present only for a run with `--allow`: the SHA-256 of the allow file's bytes and its entry count. */
  allowlist: z.strictObject({ sha256, entries: count }).optional(),
});

/**
 * The pipeline record of a v3 manifest: v1's, and the version of the built-in structural rules the
 * run screened with (null exactly when the structural layer was off, so no rules ran).
 */
export const PipelineInfoV3Schema = PipelineInfoSchema.extend({
  structural_rules_version: z.int().min(1).nullable(),
}).refine((p) => (p.structural_rules_version !== null) === (p.structural_filter === true), {
  message: "structural_rules_version is null exactly when structural_filter is not true",
  path: ["structural_rules_version"],
});

/** zod schema of the ingest manifest. */
export const IngestManifestSchema = z.strictObject({
  schema: z.literal(MANIFEST_SCHEMA),
  little_canary_version: z.string(),
  started_at: TimestampSchema,
  finished_at: TimestampSchema,
  pipeline: PipelineInfoSchema,
  policy: IngestPolicySchema,
  run: ManifestRunSchema,
  counts: ManifestCountsSchema,
  records: z.array(ManifestRecordSchema),
});

export const ExportRecordSchema = z.strictObject({
  ...RECORD_PLACE,
  sha256,
  material_sha256: sha256,
  metadata: MetadataMapSchema,
  text: z.string().min(1),
});

/** zod schema of the ingest export. */
export const IngestExportSchema = z.strictObject({
  schema: z.literal(EXPORT_SCHEMA),
  manifest_schema: z.literal(MANIFEST_SCHEMA),
  manifest_sha256: sha256,
  policy_name: z.literal("strict/v1"),
  records: z.array(ExportRecordSchema),
});

export const BATCH_STATES = ["block", "flag", "pass", "degraded", "unexercised"] as const;
export type BatchState = (typeof BATCH_STATES)[number];

export const BatchItemSchema = z.strictObject({
  ...RECORD_PLACE,
  sha256,
  length: count,
  state: z.enum(BATCH_STATES),
  /** Present only when the check returned a verdict. */
  verdict: VerdictJsonSchema.optional(),
  /** Present only when the check failed; a stable name, never exception text. */
  error: z.string().optional(),
  ...REUSED,
});

/** zod schema of the batch document. */
export const BatchDocumentSchema = z.strictObject({
  schema: z.literal(BATCH_SCHEMA),
  total: count,
  counts: z.strictObject({ block: count, flag: count, pass: count, degraded: count, unexercised: count }),
  items: z.array(BatchItemSchema),
});

export type PipelineInfo = z.infer<typeof PipelineInfoSchema>;
/** What a v3 manifest records about the pipeline (v1's record and the structural rules' version). */
export type PipelineInfoV3 = z.infer<typeof PipelineInfoV3Schema>;

/** The pipeline record as the documents without a key for the rules version (manifest v1, v2; the index) hold it. */
export function pipelineWithoutRulesVersion(pipeline: PipelineInfo | PipelineInfoV3): PipelineInfo {
  const { structural_rules_version: _version, ...rest } = pipeline as PipelineInfoV3;
  return rest;
}
export type ManifestSegment = z.infer<typeof ManifestSegmentSchema>;
/** One record entry of a manifest. */
export type ManifestRecord = z.infer<typeof ManifestRecordSchema>;
export type ManifestCounts = z.infer<typeof ManifestCountsSchema>;
/** The ingest manifest: the run, its policy, and every record with its segments and evidence. */
export type IngestManifest = z.infer<typeof IngestManifestSchema>;
export type ExportRecord = z.infer<typeof ExportRecordSchema>;
/** The ingest export: the admitted records, bound to their manifest. */
export type IngestExport = z.infer<typeof IngestExportSchema>;
export type BatchItem = z.infer<typeof BatchItemSchema>;
/** The batch document `screen` prints. */
export type BatchDocument = z.infer<typeof BatchDocumentSchema>;
