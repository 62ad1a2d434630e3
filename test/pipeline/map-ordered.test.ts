import { describe, expect, it } from "vitest";
import { mapOrderedStream } from "../../src/pipeline/map-ordered.js";
import { recordSettled } from "../support/settled.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stream map fed an array, its results collected in input order (the window never makes a lane wait). */
async function mapOrdered<T, R>(
  items: readonly T[],
  worker: (item: T, index: number) => Promise<R>,
  options: { readonly concurrency: number; readonly signal?: AbortSignal },
): Promise<R[]> {
  const results = new Array<R>(items.length);
  const source = (async function* () {
    yield* items;
  })();
  const sink = async (result: R, index: number) => {
    results[index] = result;
  };
  await mapOrderedStream(source, worker, sink, { ...options, window: Math.max(options.concurrency, items.length) });
  return results;
}

describe("mapOrderedStream", () => {
  it("keeps input order whatever the completion order, with at most N calls at once", async () => {
    let running = 0;
    let peak = 0;
    const delays = [30, 5, 20, 1, 15, 8, 2, 25];
    const results = await mapOrdered(
      delays,
      async (delay, index) => {
        running++;
        peak = Math.max(peak, running);
        await sleep(delay);
        running--;
        return index * 10;
      },
      { concurrency: 3 },
    );
    expect(results).toEqual([0, 10, 20, 30, 40, 50, 60, 70]);
    expect(peak).toBe(3);
  });

  it("rejects at once on abort instead of waiting for calls in flight", async () => {
    const controller = new AbortController();
    const calls: Array<{ readonly settled: boolean }> = [];
    const run = mapOrdered([1, 2, 3], () => recordSettled(calls, sleep(5_000)), { concurrency: 2, signal: controller.signal });
    setTimeout(() => controller.abort(new Error("interrupted")), 20);
    await expect(run).rejects.toThrow("interrupted");
    // Rejected while both calls in flight were still sleeping: it did not wait for them.
    expect(calls.map((call) => call.settled)).toEqual([false, false]);
  });

  it("stops starting new calls after a failure and rethrows it", async () => {
    const seen: number[] = [];
    const run = mapOrdered(
      [0, 1, 2, 3, 4],
      async (item) => {
        seen.push(item);
        if (item === 1) throw new Error("boom");
        await sleep(5);
        return item;
      },
      { concurrency: 1 },
    );
    await expect(run).rejects.toThrow("boom");
    expect(seen).toEqual([0, 1]);
  });

  it("refuses a concurrency that is not a positive integer", async () => {
    await expect(mapOrdered([1], async (x) => x, { concurrency: 0 })).rejects.toThrow(RangeError);
  });
});
