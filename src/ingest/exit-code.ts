// The ingest outcome as an exit code (docs/ingest.md): 0 every record admitted;
// 1 held for detection only (blocked/flagged); 2 any record held for an operational or coverage
// reason, or held with no detection reason at all. Exit 3 (refused) is decided by the caller.
import type { IngestManifest } from "../documents/schemas.js";

const OPERATIONAL = new Set(["malformed", "over_budget", "degraded", "unexercised", "error"]);
const DETECTION = new Set(["blocked", "flagged"]);

/** An ingest outcome: 0 all admitted, 1 held for detection only, 2 held for an operational or coverage reason. */
export type IngestOutcomeCode = 0 | 1 | 2;

/** The exit code a manifest's outcome maps to (exit 3, refused, is decided by the caller). */
export function ingestExitCode(manifest: IngestManifest): IngestOutcomeCode {
  let anyHeld = false;
  for (const record of manifest.records) {
    if (record.admission !== "held") continue;
    anyHeld = true;
    const reasons = record.hold_reasons;
    if (reasons.some((reason) => OPERATIONAL.has(reason))) return 2;
    if (!reasons.some((reason) => DETECTION.has(reason))) return 2;
  }
  return anyHeld ? 1 : 0;
}

export const EXIT_EXPLANATIONS: Readonly<Record<IngestOutcomeCode, string>> = {
  0: "every record admitted",
  1: "held for detection only (blocked/flagged)",
  2: "held for an operational/coverage reason",
};
