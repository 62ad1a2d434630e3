// The ingest outcome as an exit code (docs/ingest.md): 0 every record admitted;
// 1 held for detection only (blocked/flagged); 2 any record held for an operational or coverage
// reason, or held with no detection reason at all. Exit 3 (refused) is decided by the caller.
import type { ManifestRecord } from "../documents/schemas.js";

const OPERATIONAL = new Set(["malformed", "over_budget", "degraded", "unexercised", "error"]);
const DETECTION = new Set(["blocked", "flagged"]);

/** An ingest outcome: 0 all admitted, 1 held for detection only, 2 held for an operational or coverage reason. */
export type IngestOutcomeCode = 0 | 1 | 2;

/** What one record contributes to the outcome: 0 admitted, 1 held for detection only, 2 otherwise held. */
export function recordOutcomeCode(record: Pick<ManifestRecord, "admission" | "hold_reasons">): IngestOutcomeCode {
  if (record.admission !== "held") return 0;
  const reasons = record.hold_reasons;
  if (reasons.some((reason) => OPERATIONAL.has(reason))) return 2;
  if (!reasons.some((reason) => DETECTION.has(reason))) return 2;
  return 1;
}

export const EXIT_EXPLANATIONS: Readonly<Record<IngestOutcomeCode, string>> = {
  0: "every record admitted",
  1: "held for detection only (blocked/flagged)",
  2: "held for an operational/coverage reason",
};
