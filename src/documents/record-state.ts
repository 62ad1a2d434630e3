// Record state from segment outcomes: detection, coverage, hold reasons, admission and the
// counting fields of a record that was planned and (partly) checked. Pure and shared: the ingest
// run loop uses it to build a record, and `verify` to recompute one and catch a forged state.
import type { Coverage, Detection, ManifestRecord, ManifestSegment, SegmentState } from "./schemas.js";
import { CLASSIFIED_STATES, HOLD_REASONS, type HoldReason } from "./states.js";

/** What the state of a record is computed from: each segment's place, state and whether it was exercised. */
export type SegmentOutcome = Pick<ManifestSegment, "kind" | "start" | "end" | "state" | "exercised">;

/** The fields of a manifest record that follow from its segments. */
export type RecordState = Pick<ManifestRecord, "detection" | "coverage" | "hold_reasons" | "admission" | "segments_checked" | "chars_covered">;

const REASON_OF_STATE: Partial<Record<SegmentState, HoldReason>> = {
  block: "blocked",
  flag: "flagged",
  degraded: "degraded",
  unexercised: "unexercised",
  error: "error",
};

/** With `stop_after_hold`, a segment in one of these states ends checking of its record. */
export function stopsChecking(state: SegmentState): boolean {
  return state === "block" || state === "flag" || state === "degraded" || state === "unexercised" || state === "error";
}

/**
 * Code points inspected by exercised segments, each counted once: the union of exercised spans
 * per kind (metadata and text are separate materials). With every segment exercised this is
 * `chars_total`; otherwise the honest amount inspected (admission needs full coverage anyway).
 */
export function charsCovered(segments: readonly SegmentOutcome[]): number {
  let covered = 0;
  for (const kind of ["metadata", "text"] as const) {
    const spans = segments
      .filter((s) => s.kind === kind && s.exercised && s.end > s.start)
      .map((s) => [s.start, s.end] as const)
      .sort((a, b) => a[0] - b[0]);
    let reach = -Infinity;
    for (const [start, end] of spans) {
      if (end <= reach) continue;
      covered += end - Math.max(start, reach);
      reach = end;
    }
  }
  return covered;
}

/**
 * Coverage from how many of `total` parts (segments of a record, windows of a checked text) were
 * exercised by the canary: all of them `complete`, none `none`, else `partial`. The one rule
 * behind a manifest record's `coverage` and a verdict's.
 */
export function coverageOf(exercised: number, total: number): Coverage {
  return exercised === 0 ? "none" : exercised === total ? "complete" : "partial";
}

/** State of a record whose planned segments have these outcomes (in plan order). */
export function recordState(segments: readonly SegmentOutcome[]): RecordState {
  const states = new Set(segments.map((s) => s.state));
  // "none" is a claim about the whole record: it needs every planned segment to have been
  // inspected (a verdict was classified). A segment that errored or was never checked leaves
  // the record "not_checked" unless something was detected elsewhere.
  const inspectedAll = segments.length > 0 && segments.every((s) => CLASSIFIED_STATES.has(s.state));
  const detection: Detection = states.has("block") ? "block" : states.has("flag") ? "flag" : inspectedAll ? "none" : "not_checked";
  const exercisedCount = segments.filter((s) => s.exercised).length;
  const coverage = coverageOf(exercisedCount, segments.length);
  const reasons = new Set([...states].map((state) => REASON_OF_STATE[state]));
  if (states.has("not_checked") || coverage !== "complete") reasons.add("incomplete");
  // In the fixed manifest order.
  const hold_reasons = HOLD_REASONS.filter((r) => reasons.has(r));
  return {
    detection,
    coverage,
    hold_reasons,
    admission: hold_reasons.length === 0 ? "admitted" : "held",
    segments_checked: exercisedCount,
    chars_covered: charsCovered(segments),
  };
}

/** Whether a record (its values unchecked) states exactly `state`: the verdict cache's stored entries and `verify` both hold records to it. */
export function statesRecordState(record: Readonly<Record<string, unknown>>, state: RecordState): boolean {
  const fields = ["detection", "coverage", "admission", "segments_checked", "chars_covered"] as const;
  const reasons = record["hold_reasons"];
  return (
    fields.every((field) => record[field] === state[field]) &&
    Array.isArray(reasons) &&
    reasons.length === state.hold_reasons.length &&
    reasons.every((reason, i) => reason === state.hold_reasons[i])
  );
}

/** State of a record held before any check (`malformed` or `over_budget`, always alone). */
export function uncheckedHoldState(reason: "malformed" | "over_budget"): RecordState {
  return {
    // Its text was never inspected, so nothing can be said about detection.
    detection: "not_checked",
    coverage: "none",
    hold_reasons: [reason],
    admission: "held",
    segments_checked: 0,
    chars_covered: 0,
  };
}
