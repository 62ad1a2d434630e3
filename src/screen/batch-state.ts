// The batch state of one verdict (block, degraded, flag, unexercised, pass): what `screen` reports
// for an item and what `check` exits by, in one place that loads no canary backend (the check
// verb stays lean: test/architecture).
import type { BatchState } from "../documents/schemas.js";
import type { VerdictJson } from "../documents/verdict-schema.js";
import type { PipelineVerdict } from "../pipeline/verdict.js";

/** What the batch state is decided by, besides whether the verdict is flagged. */
type StateFields = Pick<PipelineVerdict, "safe" | "blockedBy" | "degraded" | "canaryStatus" | "analysisStatus">;

/**
 * The batch state of a verdict, first match wins. A fail-closed denial is not a detection: it stays
 * `degraded`/`unexercised`, so a batch's exit code says "coverage failed", not "attack found".
 */
function stateOf(v: StateFields, flagged: boolean): BatchState {
  if (!v.safe && v.blockedBy !== "fail_closed") return "block";
  if (v.degraded) return "degraded";
  if (flagged) return "flag";
  if (v.canaryStatus !== "exercised" || v.analysisStatus !== "exercised") return "unexercised";
  return "pass";
}

/** The batch state of one verdict (first match wins); a fail-closed denial stays `degraded`/`unexercised`, not `blocked`. */
export function batchState(verdict: PipelineVerdict): BatchState {
  return stateOf(verdict, verdict.advisory.flagged);
}

/** The batch state of a serialized verdict, by the same rules. */
export function batchStateOfJson(v: VerdictJson): BatchState {
  const { safe, blocked_by: blockedBy, degraded, canary_status: canaryStatus, analysis_status: analysisStatus } = v;
  return stateOf({ safe, blockedBy, degraded, canaryStatus, analysisStatus }, v.advisory.flagged);
}
