// The index of a sharded ingest run (`little-canary-ingest-index/v1`): one document naming every
// shard's published pair by path and SHA-256, with the shard's range of the input, its record
// count and counts, and the totals. Like the manifest it is written as canonical JSON after it
// passed this schema, so its SHA-256 can be pinned and checked (`verify --index`).
//
// Paths are relative to the directory of the index file, with `/` separators, so the index and
// its pairs can move together (a shared volume mounted elsewhere, a copied directory).
import { z } from "zod";
import { IngestPolicySchema } from "./policy.js";
import { ManifestCountsSchema, PipelineInfoSchema } from "./schemas.js";
import { MAX_SHARDS, ManifestShardSchema } from "./shard.js";
import { count, sha256 } from "./fields.js";

/** The schema name of the index of a sharded run. */
export const INDEX_SCHEMA = "little-canary-ingest-index/v1";

/** A published file: its path relative to the index's directory and the SHA-256 of its bytes. */
const IndexFileSchema = z.strictObject({ path: z.string().min(1), sha256 });

/**
 * One shard of the index: which shard and its range of the input (`k`, `n`, `first_line`, `lines`,
 * `range_sha256`, exactly as its manifest's `run.shard` records them), its pair and what it holds.
 */
const IndexShardSchema = ManifestShardSchema.omit({ input_lines: true }).extend({
  records_total: count,
  checks_performed: count,
  manifest: IndexFileSchema,
  export: IndexFileSchema,
  counts: ManifestCountsSchema,
});

/** zod schema of the index of a sharded run. */
export const IngestIndexSchema = z.strictObject({
  schema: z.literal(INDEX_SCHEMA),
  /** The version every shard's manifest names. */
  little_canary_version: z.string(),
  /** SHA-256 of the whole input, the same in every shard's manifest. */
  input_sha256: sha256,
  input_lines: z.int().min(1),
  shard_count: z.int().min(1).max(MAX_SHARDS),
  /** The one policy and the one pipeline (canary identity) of every shard. */
  policy: IngestPolicySchema,
  pipeline: PipelineInfoSchema,
  /** Every shard once, in order of k. */
  shards: z.array(IndexShardSchema),
  /** Sums over the shards; `counts.duplicate_ids` sums each shard's own (ids are compared within a shard). */
  totals: z.strictObject({ records_total: count, checks_performed: count, counts: ManifestCountsSchema }),
});

/** One shard of the index. */
export type IndexShard = z.infer<typeof IndexShardSchema>;
/** The index of a sharded run. */
export type IngestIndex = z.infer<typeof IngestIndexSchema>;
