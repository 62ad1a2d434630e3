// The `counts` block of a manifest, recounted from records, including how many
// records repeat an earlier record's id. Tolerant of
// hostile shapes (unknown values are not counted) because `verify` recounts records it has
// not validated and compares the result with what the manifest claims.
import { HOLD_REASONS, type HoldReason, type ManifestCounts } from "./schemas.js";

const zeroReasons = (): Record<HoldReason, number> => Object.fromEntries(HOLD_REASONS.map((r) => [r, 0])) as Record<HoldReason, number>;

export function countRecords(records: readonly unknown[]): ManifestCounts {
  const counts: ManifestCounts = {
    admitted: 0,
    held: 0,
    by_reason: zeroReasons(),
    detection: { none: 0, flag: 0, block: 0, not_checked: 0 },
    coverage: { complete: 0, partial: 0, none: 0 },
    duplicate_ids: 0,
  };
  // Records whose id equals an earlier record's id, compared by digest: held records carry
  // only the digest, and equal ids have equal digests.
  const idDigests = new Set<string>();
  for (const record of records) {
    if (typeof record !== "object" || record === null) continue;
    const r = record as Record<string, unknown>;
    if (r["admission"] === "admitted") counts.admitted++;
    else if (r["admission"] === "held") counts.held++;
    const reasons = r["hold_reasons"];
    if (Array.isArray(reasons)) {
      for (const reason of new Set(reasons)) {
        if ((HOLD_REASONS as readonly unknown[]).includes(reason)) counts.by_reason[reason as HoldReason]++;
      }
    }
    const detection = r["detection"];
    if (detection === "none" || detection === "flag" || detection === "block" || detection === "not_checked") counts.detection[detection]++;
    const coverage = r["coverage"];
    if (coverage === "complete" || coverage === "partial" || coverage === "none") counts.coverage[coverage]++;
    const idDigest = r["id_sha256"];
    if (typeof idDigest === "string") {
      if (idDigests.has(idDigest)) counts.duplicate_ids++;
      else idDigests.add(idDigest);
    }
  }
  return counts;
}
