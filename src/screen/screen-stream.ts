// The one screen path: admitted items from any source (`screenFile`'s second read, `screenBatch`'s
// array) are checked by the one item checker (check-item.ts), at most `concurrency` at once, and
// handed to a sink in input order, counted as they go. So checks, cache, circuit breaker and order
// are one code for both, and memory is bounded by the window, never by the source. The tally is
// gathered one finished item at a time, so neither path needs the items at the end: the counts
// and total of the document, and the facts the canary warning line is made of.
import { BATCH_SCHEMA, BATCH_STATES, type BatchDocument, type BatchItem, type BatchState } from "../documents/schemas.js";
import { CIRCUIT_OPEN_ERROR, type CanaryOutageReason, observeCanary } from "../pipeline/circuit-breaker.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { mapOrderedStream, type MapOrderedStreamOptions } from "../pipeline/map-ordered.js";
import type { ScreenItem } from "./admit.js";
import { itemChecker, type ItemCheckOptions } from "./check-item.js";

/** How one run checks its items (the breaker and cache of each check, the concurrency and window of the run), resolved by its entry point. */
export interface ScreenRun extends ItemCheckOptions, MapOrderedStreamOptions {
  readonly pipeline: Pick<SecurityPipeline, "check">;
}

/** Resolves with the items' tally once the last is handed to `sink`, or rejects with the first error of the source, the cache or the sink, or with the abort reason at once. */
export async function screenStream(
  items: AsyncIterable<ScreenItem>,
  run: ScreenRun,
  sink: (item: BatchItem, index: number) => Promise<void>,
): Promise<BatchTally> {
  const tally = new BatchTally();
  const handOver = async (item: BatchItem, index: number): Promise<void> => {
    tally.add(item);
    await sink(item, index);
  };
  // A falsy cache (a JavaScript caller's null) is no cache, as it always was.
  const check = itemChecker(run.pipeline, { breaker: run.breaker, cache: run.cache || undefined });
  await mapOrderedStream(items, check, handOver, run);
  return tally;
}

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
