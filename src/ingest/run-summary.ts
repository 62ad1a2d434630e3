// What a finished ingest run reports besides its documents, gathered one record at a time (in
// input order, from a file or memory) so a run of any size prints its summary and warnings
// without holding its manifest: the manifest's head, the outcome, the first held records with
// their lines, repeated ids (as counts.duplicate_ids counts them) and the canary failures' cost.
import { isReservedId, isReservedMetadataKey } from "../documents/reserved-labels.js";
import { CIRCUIT_OPEN_ERROR, failedCanaryReason, observeCanary, type CanaryOutageReason } from "../pipeline/circuit-breaker.js";
import { ReasonTally, type ReasonCounts } from "../pipeline/reason-tally.js";
import type { ManifestRecord } from "../documents/schemas.js";
import type { ManifestHead } from "../documents/manifest-v2.js";

const OPERATIONAL = new Set(["malformed", "over_budget", "degraded", "unexercised", "error"]);
const DETECTION = new Set(["blocked", "flagged"]);

/** An ingest outcome: 0 all admitted, 1 held for detection only, 2 held for an operational or coverage reason. */
export type IngestOutcomeCode = 0 | 1 | 2;

/** What one record contributes to the outcome (docs/ingest.md): 0 admitted, 1 held for detection only, 2 held for an operational or coverage reason or for no detection reason at all (exit 3, refused, is the caller's). */
function recordOutcomeCode(record: Pick<ManifestRecord, "admission" | "hold_reasons">): IngestOutcomeCode {
  if (record.admission !== "held") return 0;
  const reasons = record.hold_reasons;
  return reasons.some((reason) => OPERATIONAL.has(reason)) || !reasons.some((reason) => DETECTION.has(reason)) ? 2 : 1;
}

/** Each outcome code in words, as the CLI explains it. */
export const EXIT_EXPLANATIONS: Readonly<Record<IngestOutcomeCode, string>> = {
  0: "every record admitted",
  1: "held for detection only (blocked/flagged)",
  2: "held for an operational/coverage reason",
};

/** Held records a summary names one by one; the rest are only counted. */
export const HELD_SAMPLE_SIZE = 20;

/** One held record as a summary may show it: never its text, never a plaintext label. */
export interface HeldRecordNote {
  readonly index: number;
  /** The record's 1-based input line (blank lines count), so a person can find it in the file. */
  readonly line: number;
  readonly id_sha256: string | null;
  readonly hold_reasons: ManifestRecord["hold_reasons"];
  /** The record's detail; only an over-budget detail (numbers and flag names) is ever shown. */
  readonly detail: string | null;
}

/** A record whose id equals an earlier record's id. */
export interface DuplicateId {
  readonly index: number;
  readonly firstIndex: number;
}

/** Everything a run reports besides its documents. */
export interface IngestRunSummary {
  readonly head: ManifestHead;
  readonly outcome: IngestOutcomeCode;
  /** The first HELD_SAMPLE_SIZE held records, in input order (`head.counts.held` says how many there are). */
  readonly held: readonly HeldRecordNote[];
  /**
   * Records whose id repeats an earlier record's: how many (`head.counts.duplicate_ids`: the caller
   * tells `observe` what the counter counted), and the first pair.
   */
  readonly duplicateIds: { readonly count: number; readonly first: DuplicateId | null };
  /**
   * Admitted records whose id or a metadata key the RAG adapters reserve (documents/reserved-labels.ts):
   * how many, and the index of the first. The pair verifies, but the adapters refuse to load it.
   */
  readonly reservedLabels: { readonly count: number; readonly first: number | null };
  /** The canary's failures over the run, by records affected. */
  readonly canary: {
    /** Records with a segment the run did not send because the circuit breaker had opened. */
    readonly circuitNotSent: number;
    /**
     * The most common outage reason a record's checked segments reported first (ties: the first
     * seen), how many records had one, and each reason with its count, most first.
     */
    readonly outage: { readonly reason: CanaryOutageReason; readonly records: number; readonly reasons: ReasonCounts<CanaryOutageReason> } | null;
    /**
     * Likewise for other canary failures (an answer that is not a canary's, an HTTP error status,
     * …), over the records that had one and no outage.
     */
    readonly failed: { readonly reason: string; readonly records: number; readonly reasons: ReasonCounts } | null;
  };
}

/**
 * What the counts and this summary read of one finished entry (its top-level fields, what its
 * segments say of the canary): a reused entry is counted from these, never parsed again.
 */
export interface EntryFacts
  extends Pick<ManifestRecord, "index" | "admission" | "admission_basis" | "hold_reasons" | "detection" | "coverage" | "id_sha256" | "detail"> {
  /** A segment was not sent because the circuit breaker had opened. */
  readonly circuit_not_sent: boolean;
  /** The first canary outage reason a segment's verdict reports, or null. */
  readonly outage: CanaryOutageReason | null;
  /** Without an outage, the first other failed canary layer's coverage reason, or null. */
  readonly failed: string | null;
  /** Admitted with an id or a metadata key the RAG adapters reserve. */
  readonly reserved_labels: boolean;
}

/** The facts of `entry` (see EntryFacts). */
export function entryFacts(entry: ManifestRecord): EntryFacts {
  let outage: EntryFacts["outage"] = null;
  let failed: string | null = null;
  for (const segment of entry.segments) {
    if (segment.verdict === null) continue;
    const observation = observeCanary(segment.verdict);
    if (observation.kind !== "outage") {
      failed ??= failedCanaryReason(segment.verdict);
      continue;
    }
    outage = observation.reason;
    break;
  }
  return {
    index: entry.index,
    admission: entry.admission,
    ...(entry.admission_basis === undefined ? {} : { admission_basis: entry.admission_basis }),
    hold_reasons: entry.hold_reasons,
    detection: entry.detection,
    coverage: entry.coverage,
    id_sha256: entry.id_sha256,
    detail: entry.detail,
    circuit_not_sent: entry.segments.some((segment) => segment.error === CIRCUIT_OPEN_ERROR),
    outage,
    failed: outage === null ? failed : null,
    // Admitted records carry their id and metadata keys in plaintext; a held one is not exported.
    reserved_labels: entry.admission === "admitted" && (isReservedId(entry.id) || (entry.metadata_keys ?? []).some(isReservedMetadataKey)),
  };
}

/** Gathers the per-record parts of an IngestRunSummary, one record at a time in input order. */
export class RunTally {
  private code: IngestOutcomeCode = 0;
  private readonly heldNotes: HeldRecordNote[] = [];
  private circuitNotSent = 0;
  private readonly outages = new ReasonTally<CanaryOutageReason>();
  private readonly failures = new ReasonTally();
  private duplicates = 0;
  private firstDuplicate: DuplicateId | null = null;
  private reserved = 0;
  private firstReserved: number | null = null;

  /** Takes one finished record by its facts, its input line and the earlier record its id digest repeats (RecordCounter's decision). */
  observe(facts: EntryFacts, line: number, repeatsIndex: number | null): void {
    this.code = Math.max(this.code, recordOutcomeCode(facts)) as IngestOutcomeCode;
    if (facts.admission === "held" && this.heldNotes.length < HELD_SAMPLE_SIZE) {
      this.heldNotes.push({ index: facts.index, line, id_sha256: facts.id_sha256, hold_reasons: [...facts.hold_reasons], detail: facts.detail });
    }
    if (repeatsIndex !== null) {
      this.duplicates++;
      this.firstDuplicate ??= { index: facts.index, firstIndex: repeatsIndex };
    }
    if (facts.reserved_labels) {
      this.reserved++;
      this.firstReserved ??= facts.index;
    }
    if (facts.circuit_not_sent) this.circuitNotSent++;
    if (facts.outage !== null) this.outages.add(facts.outage);
    if (facts.failed !== null) this.failures.add(facts.failed);
  }

  /** The summary of the records observed, under `head`. */
  summary(head: ManifestHead): IngestRunSummary {
    return {
      head,
      outcome: this.code,
      held: [...this.heldNotes],
      duplicateIds: { count: this.duplicates, first: this.firstDuplicate },
      reservedLabels: { count: this.reserved, first: this.firstReserved },
      canary: {
        circuitNotSent: this.circuitNotSent,
        outage: byMostCommon(this.outages.counts()),
        failed: byMostCommon(this.failures.counts()),
      },
    };
  }
}

/** The most common reason, the records of every reason together, and each reason's count; null when none. */
function byMostCommon<R extends string>(reasons: ReasonCounts<R>): { reason: R; records: number; reasons: ReasonCounts<R> } | null {
  const most = reasons[0];
  if (most === undefined) return null;
  return { reason: most[0], records: reasons.reduce((sum, [, count]) => sum + count, 0), reasons };
}
