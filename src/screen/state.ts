// The per-item state of a screened batch, first match wins. A denial by the
// fail-closed policy is not a detection: it stays `degraded`/`unexercised`, so a batch's exit
// code still says "coverage failed" rather than "attack found".
import type { BatchState } from "../documents/schemas.js";
import type { PipelineVerdict } from "../pipeline/verdict.js";

/** The batch state of one verdict (first match wins); a fail-closed denial stays `degraded`/`unexercised`, not `blocked`. */
export function batchState(verdict: PipelineVerdict): BatchState {
  if (!verdict.safe && verdict.blockedBy !== "fail_closed") return "block";
  if (verdict.degraded) return "degraded";
  if (verdict.advisory.flagged) return "flag";
  if (verdict.canaryStatus !== "exercised" || verdict.analysisStatus !== "exercised") return "unexercised";
  return "pass";
}
