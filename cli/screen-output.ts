// The warning line `little-canary screen` prints on stderr when the canary backend failed
// during a batch. Data in, one line out.
import { CIRCUIT_OPEN_ERROR, observeCanary, type BreakerTrip } from "../src/schedule/circuit-breaker.js";
import { canaryOutageWarning, circuitOpenWarning, type CanaryTarget } from "../src/config/canary-warning.js";
import type { BatchDocument } from "../src/documents/schemas.js";

/**
 * The one warning line a batch earns: the breaker opening, else items whose canary call found
 * the backend unreachable or timed out (the first such reason is named). Null when neither.
 */
export function screenCanaryWarning(document: BatchDocument, trip: BreakerTrip | null, target: CanaryTarget): string | null {
  const n = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
  if (trip !== null) {
    const notSent = document.items.filter((item) => item.error === CIRCUIT_OPEN_ERROR).length;
    return circuitOpenWarning(target, trip, `${n(notSent, "item")} of ${document.total}`);
  }
  let first: "unavailable" | "timeout" | null = null;
  let affected = 0;
  for (const item of document.items) {
    if (item.verdict === undefined) continue;
    const seen = observeCanary(item.verdict);
    if (seen.kind !== "outage") continue;
    first ??= seen.reason;
    affected++;
  }
  return first === null ? null : canaryOutageWarning(target, first, `${n(affected, "item")} of ${document.total}`);
}
