// What a batch adds up to, gathered one finished item at a time so that neither the in-memory
// nor the streaming path needs the items at the end: the counts and total of the document, and
// the facts the canary warning line is made of.
import { BATCH_SCHEMA, BATCH_STATES, type BatchDocument, type BatchItem, type BatchState } from "../documents/schemas.js";
import { CIRCUIT_OPEN_ERROR, type CanaryOutageReason, observeCanary } from "../pipeline/circuit-breaker.js";

/** A batch's totals: its document's counts, and what its canary warning line needs. */
export interface BatchSummary {
  readonly total: number;
  readonly counts: Readonly<Record<BatchState, number>>;
  /** Items not sent to the canary because the circuit breaker had opened. */
  readonly notSent: number;
  /** Items whose canary call found the backend unreachable or timed out, and the first such reason. */
  readonly outage: { readonly affected: number; readonly first: CanaryOutageReason | null };
}

/** Adds up finished items in input order. */
export class BatchTally {
  private total = 0;
  private readonly counts = Object.fromEntries(BATCH_STATES.map((state) => [state, 0])) as Record<BatchState, number>;
  private notSent = 0;
  private affected = 0;
  private first: CanaryOutageReason | null = null;

  /** Counts one finished item. */
  add(item: BatchItem): void {
    this.total++;
    this.counts[item.state]++;
    if (item.error === CIRCUIT_OPEN_ERROR) this.notSent++;
    if (item.verdict === undefined) return;
    const seen = observeCanary(item.verdict);
    if (seen.kind !== "outage") return;
    this.first ??= seen.reason;
    this.affected++;
  }

  /** The totals so far. */
  summary(): BatchSummary {
    return { total: this.total, counts: { ...this.counts }, notSent: this.notSent, outage: { affected: this.affected, first: this.first } };
  }

  /** The document's members other than `items`, for the items counted so far. */
  rest(): Omit<BatchDocument, "items"> {
    return { schema: BATCH_SCHEMA, total: this.total, counts: { ...this.counts } };
  }
}
