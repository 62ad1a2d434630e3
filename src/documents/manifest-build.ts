// The pieces the streaming writer joins into a manifest and an export: each record entry's
// canonical text (checked against its schema), the heads, and each export record, cross-checked
// against its manifest entry before anything could be written, so an inconsistent pair is
// refused here, not found by a consumer.
import { isDeepStrictEqual } from "node:util";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import type { SegmentableRecord } from "./segment-plan.js";
import { canonicalJson } from "../core/canonical.js";
import { recordDigests } from "./material-hash.js";
import { compactRecordV1, manifestDocumentSchema, schemaNamesOf, type ManifestHead, ManifestRecordV2Schema, type ManifestVersion } from "./manifest-v2.js";
import {
  ManifestRecordSchema,
  pipelineWithoutRulesVersion,
  type PipelineInfo,
  type PipelineInfoV3,
  type ExportRecord,
  type IngestExport,
  type IngestManifest,
  type ManifestCounts,
  type ManifestRecord,
} from "./schemas.js";

/** A document with its canonical serialization. */
export interface CanonicalDocument<D> {
  readonly document: D;
  /** Canonical JSON text (no trailing newline). */
  readonly json: string;
  /** UTF-8 of `json`: the exact file bytes. */
  readonly bytes: Uint8Array;
  /** Lowercase hex SHA-256 of `bytes`. */
  readonly sha256: string;
}

/**
 * What a complete run gives its manifest: the head's members, the run's own numbers (cache,
 * shard and allowlist only when the run had them) and the record entries in input order, each
 * `index` equal to its position. The documents' fields are described in their schemas.
 */
export type ManifestInput = Pick<IngestManifest, "little_canary_version" | "started_at" | "finished_at" | "policy"> & {
  /** v1's pipeline record; a v3 manifest needs `structural_rules_version` too, which v1 and v2 leave out. */
  readonly pipeline: PipelineInfo | PipelineInfoV3;
} & Pick<IngestManifest["run"], "checks_performed" | "input_sha256" | "export_requested" | "cache" | "shard" | "allowlist"> & {
    readonly records: readonly ManifestRecord[];
  };

function deepFreeze(value: unknown): void {
  if (typeof value !== "object" || value === null) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

/**
 * The canonical text of a finished record entry in a manifest of `version`: from v2 on the entry
 * with every derivable field left out (manifest-v2.ts), validated against the v2 record schema.
 */
export function recordEntryText(entry: ManifestRecord, position: number, policy: IngestManifest["policy"], version: ManifestVersion): string {
  if (version === 1) return canonicalJson(ManifestRecordSchema, entry, ["records", position]);
  const geometry = { chars: policy.segment_chars, overlap: policy.segment_overlap };
  return canonicalJson(ManifestRecordV2Schema, compactRecordV1(entry, geometry), ["records", position]);
}

/**
 * A finished record entry's canonical text in a manifest of `version`, made once as the record
 * completes (ingest's first pass for a held record, its lanes for a checked or reused one), with
 * the entry frozen so the text cannot go stale. A v2 text is checked in its compact form against
 * the v2 record schema, not serialized as v1 first: every field it leaves out is a default the
 * code derives from the fields it keeps, and a reader expands exactly this entry from it.
 */
export function finishedEntryText(entry: ManifestRecord, position: number, policy: IngestManifest["policy"], version: ManifestVersion): string {
  if (entry.index !== position) throw new UsageError(`manifest record at position ${position} has index ${entry.index}`);
  const json = recordEntryText(entry, position, policy, version);
  deepFreeze(entry);
  return json;
}

function exportRefused(message: string): LittleCanaryError {
  return new LittleCanaryError("publish", `export refused: ${message}`);
}

/**
 * The export record of an admitted record, after checking that the manifest entry describes
 * exactly this snapshot (digests, labels, metadata keys). Refuses (code "publish") otherwise.
 */
export function exportRecordFor(entry: ManifestRecord, record: SegmentableRecord): ExportRecord {
  const index = entry.index;
  if (entry.admission !== "admitted") throw exportRefused(`entry ${index} is not admitted`);
  const { sha256: sha, material } = recordDigests(record);
  if (
    entry.hold_reasons.length !== 0 ||
    entry.sha256 !== sha ||
    entry.material_sha256 !== material ||
    entry.id !== record.id ||
    entry.source !== record.source ||
    entry.metadata_keys === null ||
    !isDeepStrictEqual(entry.metadata_keys, sortByCodePoint(Object.keys(record.metadata)))
  ) {
    throw exportRefused(`admitted entry ${index} does not match the run's records`);
  }
  return {
    index,
    id: record.id,
    source: record.source,
    sha256: sha,
    material_sha256: material,
    metadata: record.metadata as Record<string, string>,
    text: record.text,
  };
}

/** The export document without its records, bound to the manifest whose digest it names. */
export function exportHead(
  manifestSha256: string,
  version: ManifestVersion = 1,
): Omit<IngestExport, "records" | "schema" | "manifest_schema"> & { schema: string; manifest_schema: string } {
  const names = schemaNamesOf(version);
  return { schema: names.export, manifest_schema: names.manifest, manifest_sha256: manifestSha256, policy_name: "strict/v1" };
}

/**
 * The manifest without its records, for a complete run with these counts and totals; checked
 * against the manifest schema (with no records, which the schema constrains one by one and
 * nowhere else).
 */
export function manifestHead(input: Omit<ManifestInput, "records">, recordsTotal: number, counts: ManifestCounts, version: ManifestVersion = 1): ManifestHead {
  const head = {
    schema: schemaNamesOf(version).manifest,
    little_canary_version: input.little_canary_version,
    started_at: input.started_at,
    finished_at: input.finished_at,
    // Only v3 records the structural rules' version; v1 and v2 have no key for it.
    pipeline: version === 3 ? input.pipeline : pipelineWithoutRulesVersion(input.pipeline),
    policy: input.policy,
    run: {
      status: "complete",
      records_total: recordsTotal,
      checks_performed: input.checks_performed,
      input_sha256: input.input_sha256,
      export_requested: input.export_requested,
      ...(input.cache === undefined ? {} : { cache: { hits: input.cache.hits, misses: input.cache.misses } }),
      ...(input.shard === undefined ? {} : { shard: { ...input.shard } }),
      ...(input.allowlist === undefined ? {} : { allowlist: { sha256: input.allowlist.sha256, entries: input.allowlist.entries } }),
    },
    counts,
  } as ManifestHead;
  canonicalJson(manifestDocumentSchema(head.schema), { ...head, records: [] });
  return head;
}
