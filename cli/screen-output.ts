// The warning line `little-canary screen` prints on stderr when the canary backend failed
// during a batch. Data in, one line out.
import type { BreakerTrip } from "../src/schedule/circuit-breaker.js";
import { canaryOutageWarning, circuitOpenWarning, type CanaryTarget } from "../src/config/canary-warning.js";
import type { BatchSummary } from "../src/screen/tally.js";

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
