// The `counts` block of a manifest, recounted from records, including how many
// records repeat an earlier record's id. Tolerant of
// hostile shapes (unknown values are not counted) because `verify` recounts records it has
// not validated and compares the result with what the manifest claims.
import { HOLD_REASONS, type HoldReason, type ManifestCounts } from "./schemas.js";

/**
 * Counts records one at a time, in input order, for runs too large to hold. `seenBefore`
 * answers whether an id digest was already seen (and remembers it): a Set for a run in memory,
 * an index on disk for a streamed one.
 */
export class RecordCounter {
  private readonly tally: ManifestCounts = {
    admitted: 0,
    held: 0,
    by_reason: Object.fromEntries(HOLD_REASONS.map((r) => [r, 0])) as Record<HoldReason, number>,
    detection: { none: 0, flag: 0, block: 0, not_checked: 0 },
    coverage: { complete: 0, partial: 0, none: 0 },
    duplicate_ids: 0,
  };

  /** Records admitted by the allowlist; `counts.allowlisted` only when there is one. */
  private allowlisted = 0;

  constructor(private readonly seenBefore: (idDigest: string) => boolean) {}

  /** Counts one record (tolerant of hostile shapes: unknown values are not counted). */
  add(record: unknown): void {
    if (typeof record !== "object" || record === null) return;
    const counts = this.tally;
    const r = record as Record<string, unknown>;
    if (r["admission"] === "admitted") counts.admitted++;
    if (r["admission"] === "admitted" && r["admission_basis"] === "allowlist") this.allowlisted++;
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
    // Records whose id equals an earlier record's id, compared by digest: held records carry
    // only the digest, and equal ids have equal digests.
    const idDigest = r["id_sha256"];
    if (typeof idDigest === "string" && this.seenBefore(idDigest)) counts.duplicate_ids++;
  }

  /**
   * Adds the counts of other records, counted apart (verify's second thread); `duplicate_ids`
   * are added as they are (verify counts repeated ids across both itself).
   */
  absorb(counts: ManifestCounts): void {
    const tally = this.tally;
    tally.admitted += counts.admitted;
    tally.held += counts.held;
    tally.duplicate_ids += counts.duplicate_ids;
    // Every key of each group, as the tally itself lists them.
    for (const group of ["by_reason", "detection", "coverage"] as const) {
      const into = tally[group] as Record<string, number>;
      const from = counts[group] as Record<string, number>;
      for (const key of Object.keys(into)) into[key] = (into[key] as number) + (from[key] as number);
    }
    this.allowlisted += counts.allowlisted ?? 0;
  }

  /** The counts so far (a fresh copy). */
  counts(): ManifestCounts {
    return { ...structuredClone(this.tally), ...(this.allowlisted > 0 ? { allowlisted: this.allowlisted } : {}) };
  }
}

/** The counts of records held in memory. */
export function countRecords(records: readonly unknown[]): ManifestCounts {
  const idDigests = new Set<string>();
  const counter = new RecordCounter((digest) => {
    if (idDigests.has(digest)) return true;
    idDigests.add(digest);
    return false;
  });
  for (const record of records) counter.add(record);
  return counter.counts();
}
