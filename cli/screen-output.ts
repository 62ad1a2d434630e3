// What `little-canary screen` prints on stderr besides the document: the warning line when the
// canary backend failed during a batch, and the one summary line that ends every finished run.
// Data in, one line out.
import type { BreakerTrip } from "../src/pipeline/circuit-breaker.js";
import { canaryOutageWarning, circuitOpenWarning, type CanaryTarget } from "../src/pipeline/canary-warning.js";
import type { BatchState } from "../src/documents/schemas.js";
import { batchExitCode } from "../src/screen/screen-batch.js";
import type { BatchSummary } from "../src/screen/tally.js";
import { plural } from "./plural.js";

/**
 * The one warning line a batch earns: the breaker opening, else items whose canary call found
 * the backend unreachable or timed out (the first such reason is named). Null when neither.
 */
export function screenCanaryWarning(summary: BatchSummary, trip: BreakerTrip | null, target: CanaryTarget): string | null {
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  if (trip !== null) return circuitOpenWarning(target, trip, `${n(summary.notSent, "item")} of ${summary.total}`);
  const { first, affected } = summary.outage;
  return first === null ? null : canaryOutageWarning(target, first, `${n(affected, "item")} of ${summary.total}`);
}

/** The order states are named in the summary line: from the good outcome to the ones that need a look. */
const SUMMARY_ORDER: readonly BatchState[] = ["pass", "flag", "block", "degraded", "unexercised"];

/**
 * The summary line of a finished batch, with the document's own counts under its state words
 * (only the states that occur) and the exit code with what it means:
 * `screen: 5 items: pass=2 block=2 degraded=1; exit 2 (1 item not fully screened)`.
 */
export function formatScreenSummary(summary: Pick<BatchSummary, "total" | "counts">): string {
  const { total, counts } = summary;
  const code = batchExitCode(summary);
  const states = SUMMARY_ORDER.filter((state) => counts[state] > 0).map((state) => `${state}=${counts[state]}`);
  const notScreened = counts.degraded + counts.unexercised;
  const detected = counts.block + counts.flag;
  const why =
    total === 0
      ? "no items in input"
      : code === 2
        ? `${plural(notScreened, "item")} not fully screened: degraded or unexercised`
        : code === 1
          ? `${plural(detected, "item")} blocked or flagged`
          : "every item passed";
  return `screen: ${plural(total, "item")}${states.length > 0 ? `: ${states.join(" ")}` : ""}; exit ${code} (${why})\n`;
}
