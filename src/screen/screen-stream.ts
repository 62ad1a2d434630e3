// The one screen path: admitted items from any source (`screenFile`'s second read, `screenBatch`'s
// array) are checked by the one item checker (check-item.ts), at most `concurrency` at once, and
// handed to a sink in input order, counted as they go. So checks, cache, circuit breaker and order
// are one code for both, and memory is bounded by the window, never by the source.
import type { BatchItem } from "../documents/schemas.js";
import type { SecurityPipeline } from "../pipeline/pipeline.js";
import { mapOrderedStream, type MapOrderedStreamOptions } from "../pipeline/map-ordered.js";
import type { ScreenItem } from "./admit.js";
import { itemChecker, type ItemCheckOptions } from "./check-item.js";
import { BatchTally } from "./tally.js";

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
