// The one screen path: admitted items from any source (the second read of a file or stdin copy,
// an in-memory array) are checked by the one item checker (check-item.ts), at most `concurrency`
// at once, and handed to a sink in input order, each counted as it is handed over. `screenFile`
// feeds it its second read and spools the items; `screenItems` feeds it its array and keeps
// them. So the checks, the cache, the circuit breaker and the order are one code for both, and
// memory is bounded by the window (items taken and not yet handed over), never by the source.
import type { BatchItem } from "../documents/schemas.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import type { CanaryCircuitBreaker } from "../schedule/circuit-breaker.js";
import { mapOrderedStream } from "../schedule/map-ordered.js";
import type { ScreenItem } from "./admit.js";
import { itemChecker, type ItemVerdictCache } from "./check-item.js";
import { BatchTally } from "./tally.js";

/** How one run checks its items, resolved by its entry point before the first check. */
export interface ScreenRun {
  readonly pipeline: Pick<SecurityPipeline, "check">;
  /** Items checked at once; the items handed over are the same for any value. */
  readonly concurrency: number;
  /** Most items taken and not yet handed over (default: twice the concurrency). */
  readonly window?: number;
  /** Shared by every item of the run: once open, items that need the canary are not sent. */
  readonly breaker: CanaryCircuitBreaker;
  readonly cache?: ItemVerdictCache;
  /** Aborting stops taking items and rejects with the signal's reason at once. */
  readonly signal?: AbortSignal;
  /** Called after each item is handed over, with the number done so far. */
  readonly onProgress?: (done: number) => void;
}

/**
 * Checks `items` and hands each finished one to `sink` (awaited) in input order; resolves with
 * their tally once the last is handed over, or rejects with the first error of the source, the
 * cache or the sink.
 */
export async function screenStream(
  items: AsyncIterable<ScreenItem>,
  run: ScreenRun,
  sink: (item: BatchItem, index: number) => Promise<void>,
): Promise<BatchTally> {
  const tally = new BatchTally();
  const check = itemChecker(run.pipeline, { breaker: run.breaker, cache: run.cache });
  const handOver = async (item: BatchItem, index: number): Promise<void> => {
    tally.add(item);
    await sink(item, index);
  };
  await mapOrderedStream(items, check, handOver, { concurrency: run.concurrency, window: run.window, signal: run.signal, onProgress: run.onProgress });
  return tally;
}
