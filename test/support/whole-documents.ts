// Whole documents built in memory: the manifest and export of a run given as plain data, made
// by the same entry texts, head and export records as the streaming writer (src/ingest/
// stream-run.ts), joined in memory. Tests and the verify benchmark use them to make pairs and as
// the reference the streamed pair must equal byte for byte; the product itself writes only by
// streaming.
import { canonicalJson } from "../../src/core/canonical.js";
import { canonicalObjectWithArray } from "./core-text.js";
import { LittleCanaryError, UsageError } from "../../src/core/errors.js";
import { sha256Hex } from "../../src/core/hash.js";
import { countRecords } from "../../src/documents/counts.js";
import { exportHead, exportRecordFor, type ManifestInput, manifestHead, recordEntryText } from "../../src/documents/manifest-build.js";
import { exportDocumentSchema, type ManifestDocument, type ManifestVersion, manifestFacts, manifestVersionNamed } from "../../src/documents/manifest-v2.js";
import type { ExportRecord, IngestExport, IngestManifest, ManifestRecord } from "../../src/documents/schemas.js";
import type { SegmentableRecord } from "../../src/documents/segment-plan.js";
import type { CanonicalDocument } from "../../src/documents/manifest-build.js";

export type { CanonicalDocument };

function canonicalDocument<D>(document: D, json: string): CanonicalDocument<D> {
  const bytes = new TextEncoder().encode(json);
  return { document, json, bytes, sha256: sha256Hex(bytes) };
}

/**
 * The manifest of a complete run, validated, with its canonical bytes: v1 unless `version` says
 * otherwise (then `document` is the compact document the bytes hold; `manifestFacts` gives its
 * v1 records). Its entries are made as the record runner makes them, and joined around the head.
 */
export function buildManifest(input: ManifestInput): CanonicalDocument<IngestManifest>;
export function buildManifest(input: ManifestInput, version: ManifestVersion): CanonicalDocument<ManifestDocument>;
export function buildManifest(input: ManifestInput, version: ManifestVersion = 1): CanonicalDocument<ManifestDocument> {
  // The caller's objects are not frozen here: the texts are joined before this returns.
  const texts = input.records.map((record, position) => recordEntryText(record, position, input.policy, version));
  input.records.forEach((record, position) => {
    if (record.index !== position) throw new UsageError(`manifest record at position ${position} has index ${record.index}`);
  });
  const head = manifestHead(input, input.records.length, countRecords(input.records), version);
  const json = canonicalObjectWithArray(head, "records", texts);
  return canonicalDocument(version === 1 ? ({ ...head, records: [...input.records] } as IngestManifest) : (JSON.parse(json) as ManifestDocument), json);
}

/** An admitted record's snapshot, as the run loop kept it. */
export interface AdmittedSnapshot {
  readonly index: number;
  readonly record: SegmentableRecord;
}

function exportRefused(message: string): LittleCanaryError {
  return new LittleCanaryError("publish", `export refused: ${message}`);
}

/**
 * The export for `manifest` (already built with `export_requested: true`) holding the
 * admitted snapshots. Refuses (LittleCanaryError code "publish") unless the snapshots are
 * exactly the manifest's admitted records, each matching its recorded digests and labels.
 */
export function buildExport(manifest: CanonicalDocument<ManifestDocument>, admitted: readonly AdmittedSnapshot[]): CanonicalDocument<IngestExport> {
  const doc = manifest.document;
  if (doc.run.status !== "complete") throw exportRefused("export requires a complete ingest run");
  if (!doc.run.export_requested) throw exportRefused("the manifest does not record that an export was requested");
  const facts = manifestFacts(doc);
  const admittedIndices = facts.filter((r) => r.admission === "admitted").map((r) => r.index);
  const snapshots = [...admitted].sort((a, b) => a.index - b.index);
  const distinct = new Set(snapshots.map((s) => s.index));
  if (distinct.size !== snapshots.length || snapshots.length !== admittedIndices.length || snapshots.some((s, i) => s.index !== admittedIndices[i])) {
    throw exportRefused("admitted entries do not match the run's records");
  }
  const records: ExportRecord[] = snapshots.map(({ index, record }) => exportRecordFor(facts[index] as ManifestRecord, record));
  const exportDoc = { ...exportHead(manifest.sha256, manifestVersionNamed(doc.schema) ?? 1), records } as IngestExport;
  return canonicalDocument(exportDoc, canonicalJson(exportDocumentSchema(exportDoc.schema), exportDoc));
}
