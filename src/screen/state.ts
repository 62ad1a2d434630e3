// The per-item state of a screened batch, first match wins. A denial by the
// fail-closed policy is not a detection: it stays `degraded`/`unexercised`, so a batch's exit
// code still says "coverage failed" rather than "attack found".
import type { BatchState } from "../documents/schemas.js";
import type { VerdictJson } from "../documents/verdict-schema.js";
import type { PipelineVerdict } from "../pipeline/verdict.js";

/** What the batch state is decided by, from a live or a serialized verdict. */
interface StateFields {
  readonly safe: boolean;
  readonly blockedBy: string | null;
  readonly degraded: boolean;
  readonly flagged: boolean;
  readonly canaryStatus: string;
  readonly analysisStatus: string;
}

function stateOf(v: StateFields): BatchState {
  if (!v.safe && v.blockedBy !== "fail_closed") return "block";
  if (v.degraded) return "degraded";
  if (v.flagged) return "flag";
  if (v.canaryStatus !== "exercised" || v.analysisStatus !== "exercised") return "unexercised";
  return "pass";
}

/** The batch state of one verdict (first match wins); a fail-closed denial stays `degraded`/`unexercised`, not `blocked`. */
export function batchState(verdict: PipelineVerdict): BatchState {
  const { safe, blockedBy, degraded, canaryStatus, analysisStatus } = verdict;
  return stateOf({ safe, blockedBy, degraded, flagged: verdict.advisory.flagged, canaryStatus, analysisStatus });
}

/** The batch state of a serialized verdict, by the same rules. */
export function batchStateOfJson(v: VerdictJson): BatchState {
  return stateOf({
    safe: v.safe,
    blockedBy: v.blocked_by,
    degraded: v.degraded,
    flagged: v.advisory.flagged,
    canaryStatus: v.canary_status,
    analysisStatus: v.analysis_status,
  });
}
