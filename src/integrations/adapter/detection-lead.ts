// The first words a host shows for an `unscreened` outcome that still carries a detection. A
// service without a canary (`serve --no-canary`), or one whose canary failed, still runs its
// structural layer: when that layer flagged the text, the verdict is unscreened (behavioral
// coverage is incomplete, so the failure mode applies) and also a detection. The detection is
// named first, as the finding it is, and the coverage gap after it; words such as "screening
// unavailable" are kept for outcomes that carry no detection. Never holds input text.
import type { HostClassification } from "../classify.js";

/**
 * `Little Canary flagged this <subject>; <what did not run>` for an unscreened outcome whose
 * verdict was flagged, or null for any other outcome (a host then words it its usual way).
 */
export function detectionLead(outcome: HostClassification, subject: string): string | null {
  if (outcome.decision !== "unscreened" || !outcome.flagged) return null;
  return `Little Canary flagged this ${subject}; ${outcome.reason}`;
}
