// Manifest record entries built from plain run data: a record held before checking (malformed or
// over budget) or one whose planned segments were checked. The run loop decides what happened;
// these only derive every recorded field, so the derivation exists once and `verify` can
// recompute it. No record text or metadata value ever lands in an entry; labels are plaintext
// only when the record is admitted.
import { detectionSignals, extractSignals } from "./classify.js";
import { MAX_DETAIL_CHARS, MAX_LABEL_CHARS, MAX_SIGNAL_CHARS } from "./policy.js";
import { recordState, uncheckedHoldState } from "./record-state.js";
import type { VerdictJson } from "./verdict-schema.js";
import { sortByCodePoint } from "../core/code-point-order.js";
import type { SegmentableRecord, SegmentPlan } from "./segment-plan.js";
import { codePointLength, truncateCodePoints } from "../core/codepoints.js";
import { UsageError } from "../core/errors.js";
import { sha256Hex } from "../core/hash.js";
import { recordDigests } from "./material-hash.js";
import { allowlistMatch, type Allowlist } from "./allowlist.js";
import type { ManifestRecord, ManifestSegment, SegmentState } from "./schemas.js";
import { CLASSIFIED_STATES } from "./states.js";

/** What the run loop learned about one planned segment. */
export interface SegmentResult {
  readonly state: SegmentState;
  readonly exercised: boolean;
  readonly verdict: VerdictJson | null;
  readonly error: string | null;
  readonly latency: number | null;
  readonly prompt_eval_count: number | null;
  /**
   * Labels of what was detected, beyond what the serialized verdict names: the structural
   * reason labels and the canary's signal categories (the run reads them from the live verdict).
   */
  readonly signals?: readonly string[];
  /** Set when the result came from the verdict cache: when the original check was made. */
  readonly reused?: { readonly checked_at: string };
}

/** A segment that was planned but not checked because an earlier one stopped the record. */
export const NOT_CHECKED: SegmentResult = Object.freeze({
  state: "not_checked",
  exercised: false,
  verdict: null,
  error: null,
  latency: null,
  prompt_eval_count: null,
});

function labelDigest(label: unknown): string | null {
  return typeof label === "string" && label.isWellFormed() && codePointLength(label) <= MAX_LABEL_CHARS ? sha256Hex(label) : null;
}

const detailText = (detail: string): string => truncateCodePoints(detail.isWellFormed() ? detail : detail.toWellFormed(), MAX_DETAIL_CHARS);

/** A record the reader or validation found malformed. Fields are read defensively. */
export function malformedRecordEntry(input: {
  readonly index: number;
  readonly text: unknown;
  readonly id: unknown;
  readonly source: unknown;
  readonly detail: string;
}): ManifestRecord {
  const state = uncheckedHoldState("malformed");
  return {
    index: input.index,
    id: null,
    source: null,
    id_sha256: labelDigest(input.id),
    source_sha256: labelDigest(input.source),
    sha256: "",
    material_sha256: "",
    length: typeof input.text === "string" ? codePointLength(input.text) : 0,
    metadata_key_count: 0,
    metadata_keys: null,
    ...state,
    detection_signals: [],
    detail: detailText(input.detail),
    segments_total: 0,
    chars_total: 0,
    segments: [],
  };
}

/**
 * A valid record held because its id repeats an earlier record's id and unique ids were
 * required (`--unique-ids`). It is held before any check, as a record-level problem.
 */
export function duplicateIdRecordEntry(input: {
  readonly index: number;
  readonly id: string;
  readonly source: unknown;
  readonly text: unknown;
  readonly firstIndex: number;
}): ManifestRecord {
  const detail = `record ${input.index}: id repeats the id of record ${input.firstIndex} (unique ids required by --unique-ids)`;
  return malformedRecordEntry({ ...input, detail });
}

/** The flag that raises each over-budget limit, so the hold says how to change it. */
const OVER_BUDGET_FLAG: Readonly<Record<string, string>> = {
  text_bytes: "--max-item-bytes",
  segments: "--max-segments (or a larger --segment-chars)",
};

function validRecordFields(index: number, record: SegmentableRecord) {
  const digests = recordDigests(record);
  return {
    index,
    id_sha256: record.id === null ? null : sha256Hex(record.id),
    source_sha256: record.source === null ? null : sha256Hex(record.source),
    sha256: digests.sha256,
    material_sha256: digests.material,
    length: codePointLength(record.text),
    metadata_key_count: Object.keys(record.metadata).length,
  };
}

/** A valid record whose plan is over budget (the plan's reason becomes the detail). */
export function overBudgetRecordEntry(input: { readonly index: number; readonly record: SegmentableRecord; readonly plan: SegmentPlan }): ManifestRecord {
  const reason = input.plan.over_budget_reason;
  if (reason === null) throw new UsageError("overBudgetRecordEntry needs an over-budget plan");
  return {
    ...validRecordFields(input.index, input.record),
    id: null,
    source: null,
    metadata_keys: null,
    ...uncheckedHoldState("over_budget"),
    detection_signals: [],
    detail: detailText(`record ${input.index}: ${reason.message}${OVER_BUDGET_FLAG[reason.code] ? `; raise it with ${OVER_BUDGET_FLAG[reason.code]}` : ""}`),
    segments_total: input.plan.segments_total,
    chars_total: input.plan.chars_total,
    segments: [],
  };
}

/**
 * A record whose planned segments were checked; `results[i]` belongs to `plan.segments[i]`.
 * With an allowlist, a record held for detections alone whose hash is listed is admitted
 * (allowlist.ts): its hold reasons become empty, `detection` and the segments keep what was
 * detected, and `admission_basis` with the matching entries say why it was admitted.
 */
export function checkedRecordEntry(input: {
  readonly index: number;
  readonly record: SegmentableRecord;
  readonly plan: SegmentPlan;
  readonly results: readonly SegmentResult[];
  readonly allowlist?: Allowlist;
}): ManifestRecord {
  const { plan, results, record } = input;
  if (plan.over_budget || results.length !== plan.segments.length) {
    throw new UsageError("checkedRecordEntry needs one result per planned segment of a plan within budget");
  }
  const segments: ManifestSegment[] = plan.segments.map((planned, i) => {
    const result = results[i] as SegmentResult;
    return {
      kind: planned.kind,
      index: planned.index,
      start: planned.start,
      end: planned.end,
      sha256: planned.sha256,
      state: result.state,
      exercised: result.exercised,
      verdict: result.verdict,
      error: result.error,
      latency: result.latency,
      prompt_eval_count: result.prompt_eval_count,
      ...(result.reused === undefined ? {} : { reused: true as const, checked_at: result.reused.checked_at }),
    };
  });
  const screened = recordState(segments);
  const digests = validRecordFields(input.index, record);
  const allowed = input.allowlist === undefined ? null : allowlistMatch({ ...screened, material_sha256: digests.material_sha256, segments }, input.allowlist);
  const state = allowed === null ? screened : { ...screened, hold_reasons: [], admission: "admitted" as const };
  const admitted = state.admission === "admitted";
  const signals = detectionSignals(
    results
      .filter((r) => CLASSIFIED_STATES.has(r.state) && r.verdict !== null)
      .map((r) => [...extractSignals(r.verdict), ...(r.signals ?? []).map((s) => truncateCodePoints(s, MAX_SIGNAL_CHARS))]),
  );
  return {
    ...digests,
    id: admitted ? record.id : null,
    source: admitted ? record.source : null,
    metadata_keys: admitted ? sortByCodePoint(Object.keys(record.metadata)) : null,
    ...state,
    detection_signals: signals,
    detail: null,
    segments_total: plan.segments_total,
    chars_total: plan.chars_total,
    segments,
    ...(allowed === null ? {} : { admission_basis: "allowlist" as const, allowlist_entries: allowed.map((e) => ({ ...e })) }),
  };
}
