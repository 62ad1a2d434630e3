// What a finished ingest run reports besides its documents, gathered one record at a time so a
// run of any size can print its summary and warnings without holding its manifest: the head of
// the manifest (everything but the records), the outcome, the first held records, and what the
// canary's failures cost. Fed in input order by both the in-memory and the streaming run.
import { CIRCUIT_OPEN_ERROR, observeCanary } from "../schedule/circuit-breaker.js";
import type { IngestManifest, ManifestRecord } from "../documents/schemas.js";
import { recordOutcomeCode, type IngestOutcomeCode } from "./exit-code.js";

/** Held records a summary names one by one; the rest are only counted. */
export const HELD_SAMPLE_SIZE = 20;

/** The manifest without its records. */
export type ManifestHead = Omit<IngestManifest, "records">;

/** One held record as a summary may show it: never its text, never a plaintext label. */
export interface HeldRecordNote {
  readonly index: number;
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

/** Records whose id repeats an earlier record's: how many, and the first such pair. */
export interface DuplicateIdSummary {
  readonly count: number;
  readonly first: DuplicateId | null;
}

/** The canary's failures over the run, by records affected. */
export interface CanaryTrouble {
  /** Records with a segment the run did not send because the circuit breaker had opened. */
  readonly circuitNotSent: number;
  /** The first outage reason a checked segment reported, and how many records had one. */
  readonly outage: { readonly reason: "unavailable" | "timeout"; readonly records: number } | null;
}

/** Everything a run reports besides its documents. */
export interface IngestRunSummary {
  readonly head: ManifestHead;
  readonly outcome: IngestOutcomeCode;
  /** The first HELD_SAMPLE_SIZE held records, in input order (`head.counts.held` says how many there are). */
  readonly held: readonly HeldRecordNote[];
  readonly duplicateIds: DuplicateIdSummary;
  readonly canary: CanaryTrouble;
}

/** Gathers the per-record parts of an IngestRunSummary, one record at a time in input order. */
export class RunTally {
  private code: IngestOutcomeCode = 0;
  private readonly heldNotes: HeldRecordNote[] = [];
  private circuitNotSent = 0;
  private outageReason: "unavailable" | "timeout" | null = null;
  private outageRecords = 0;

  /** Takes one finished record entry. */
  observe(entry: ManifestRecord): void {
    this.code = Math.max(this.code, recordOutcomeCode(entry)) as IngestOutcomeCode;
    if (entry.admission === "held" && this.heldNotes.length < HELD_SAMPLE_SIZE) {
      this.heldNotes.push({ index: entry.index, id_sha256: entry.id_sha256, hold_reasons: [...entry.hold_reasons], detail: entry.detail });
    }
    if (entry.segments.some((segment) => segment.error === CIRCUIT_OPEN_ERROR)) this.circuitNotSent++;
    for (const segment of entry.segments) {
      if (segment.verdict === null) continue;
      const observation = observeCanary(segment.verdict);
      if (observation.kind !== "outage") continue;
      this.outageReason ??= observation.reason;
      this.outageRecords++;
      break;
    }
  }

  /** The summary of the records observed, under `head`. */
  summary(head: ManifestHead, duplicateIds: DuplicateIdSummary): IngestRunSummary {
    return {
      head,
      outcome: this.code,
      held: [...this.heldNotes],
      duplicateIds,
      canary: {
        circuitNotSent: this.circuitNotSent,
        outage: this.outageReason === null ? null : { reason: this.outageReason, records: this.outageRecords },
      },
    };
  }
}
