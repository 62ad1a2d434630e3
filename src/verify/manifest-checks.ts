// Checks of a manifest on its own (schema, policy, counts, digests, plus internal
// consistency): shared by `verifyExport` and `verifyManifestOnly`.
//
// Beyond that, every record is recomputed from its own segments: each classified
// segment's verdict must re-classify to the recorded state, the record's detection, coverage,
// hold reasons, admission and counters must follow from its segments (record-state.ts), and
// its segment spans must be the plan the manifest's policy gives for its recorded lengths.
// This catches a forged state on held records too, where no export text is available.
import { classifySegmentVerdict } from "../documents/classify.js";
import { recordState, uncheckedHoldState, type SegmentOutcome } from "../documents/record-state.js";
import { canonicalJsonUnchecked } from "../core/canonical.js";
import { countRecords } from "../documents/counts.js";
import { ManifestRecordSchema, type ManifestRecord } from "../documents/schemas.js";
import { segmentCount, segmentSpans } from "../documents/segment-spans.js";
import { isInt, isObj, own, planGeometry, type Obj } from "./_values.js";
import type { ProblemList } from "./problems.js";

export interface ManifestRecordsView {
  /** Manifest records by index (only well-formed positions). */
  readonly byIndex: Map<number, Obj>;
  /** Indices of admitted records, in manifest order. */
  readonly admitted: number[];
  readonly list: unknown[];
}

/** Step 8 (status) and step 9. */
export function checkRunAndContext(manifest: Obj, problems: ProblemList): void {
  const run = own(manifest, "run");
  if (!isObj(run) || own(run, "status") !== "complete") problems.add("run_incomplete", "manifest run is not complete");
  const pipeline = own(manifest, "pipeline");
  if (!isObj(pipeline) || own(pipeline, "canary_context_verified") !== true) {
    problems.add("context_unverified", "manifest does not record a verified canary context window");
  }
}

/** Steps 10–11 plus the per-record consistency checks. */
export function checkManifestRecords(manifest: Obj, problems: ProblemList): ManifestRecordsView {
  const raw = own(manifest, "records");
  const list = Array.isArray(raw) ? raw : [];
  if (!Array.isArray(raw)) problems.add("manifest_records_missing", "manifest records missing");
  const byIndex = new Map<number, Obj>();
  const admitted: number[] = [];
  const geometry = planGeometry(own(manifest, "policy"));
  list.forEach((record, position) => {
    const index = isObj(record) ? own(record, "index") : undefined;
    if (!isObj(record) || !isInt(index)) {
      problems.add("manifest_record_malformed", `manifest record at position ${position}: malformed`);
      return;
    }
    if (byIndex.has(index) || index !== position) {
      problems.add("manifest_record_index", `manifest record at position ${position}: duplicate or out-of-order index`);
      return;
    }
    byIndex.set(index, record);
    if (own(record, "admission") === "admitted") admitted.push(index);
    checkRecordConsistency(record, index, geometry, problems);
  });
  const run = own(manifest, "run");
  if (!isObj(run) || own(run, "records_total") !== list.length) {
    problems.add("records_total", "manifest records_total does not match the record list");
  }
  return { byIndex, admitted, list };
}

/** Step 17. */
export function checkCounts(manifest: Obj, records: readonly unknown[], problems: ProblemList): void {
  let same = false;
  try {
    same = canonicalJsonUnchecked(own(manifest, "counts")) === canonicalJsonUnchecked(countRecords(records));
  } catch {
    same = false;
  }
  if (!same) problems.add("counts_mismatch", "manifest counts do not match its records");
}

const CLASSIFIED = new Set(["pass", "flag", "block", "degraded", "unexercised"]);

function segmentsAgreeWithVerdicts(record: ManifestRecord): boolean {
  return record.segments.every((s) => {
    if (CLASSIFIED.has(s.state)) {
      if (s.verdict === null) return false;
      const c = classifySegmentVerdict(s.verdict);
      return !("error" in c) && c.state === s.state && c.exercised === s.exercised;
    }
    if (s.state === "error") return s.verdict === null && !s.exercised;
    return s.verdict === null && !s.exercised && s.error === null; // not_checked
  });
}

function stateMatches(record: ManifestRecord): boolean {
  const expected =
    record.segments.length === 0
      ? record.hold_reasons.length === 1 && (record.hold_reasons[0] === "malformed" || record.hold_reasons[0] === "over_budget")
        ? uncheckedHoldState(record.hold_reasons[0])
        : null
      : recordState(record.segments as readonly SegmentOutcome[]);
  if (expected === null) return false;
  return (
    expected.detection === record.detection &&
    expected.coverage === record.coverage &&
    expected.admission === record.admission &&
    expected.segments_checked === record.segments_checked &&
    expected.chars_covered === record.chars_covered &&
    expected.hold_reasons.length === record.hold_reasons.length &&
    expected.hold_reasons.every((r, i) => r === record.hold_reasons[i]) &&
    (record.segments.length === 0 || record.segments_total === record.segments.length) &&
    segmentsAgreeWithVerdicts(record)
  );
}

function spansMatch(record: ManifestRecord, geometry: { chars: number; overlap: number }): boolean {
  if (record.segments.length === 0) return true;
  const materialLength = record.chars_total - record.length;
  if (materialLength < 0) return false;
  const { chars, overlap } = geometry;
  const expectedCount = segmentCount(materialLength, chars, overlap) + segmentCount(record.length, chars, overlap);
  if (expectedCount !== record.segments.length) return false;
  const expected = [
    ...segmentSpans(materialLength, chars, overlap).map((s, index) => ({ kind: "metadata", index, ...s })),
    ...segmentSpans(record.length, chars, overlap).map((s, index) => ({ kind: "text", index, ...s })),
  ];
  return expected.every((e, i) => {
    const s = record.segments[i];
    return s !== undefined && s.kind === e.kind && s.index === e.index && s.start === e.start && s.end === e.end;
  });
}

function checkRecordConsistency(record: Obj, index: number, geometry: { chars: number; overlap: number } | null, problems: ProblemList): void {
  // Shape problems are reported once, by the schema check; only well-shaped records are recomputed.
  const parsed = ManifestRecordSchema.safeParse(record);
  if (!parsed.success) return;
  if (!stateMatches(parsed.data)) {
    problems.add("record_state_mismatch", `record ${index}: recorded state does not match its segments`);
  }
  if (geometry !== null && !spansMatch(parsed.data, geometry)) {
    problems.add("segment_plan_mismatch", `record ${index}: segments do not match the policy's plan`);
  }
}
