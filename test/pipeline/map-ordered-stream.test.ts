// mapOrderedStream: ordered, bounded by concurrency and window, awaited sink, errors and aborts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapOrderedStream } from "../../src/pipeline/map-ordered.js";
import { recordSettled } from "../support/settled.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An async source of 0..n-1 that records how far it was pulled and whether it was closed. */
function counting(n: number, options: { failAt?: number; hangAt?: number } = {}) {
  const state = { pulled: 0, closed: false };
  const iterable: AsyncIterable<number> = {
    [Symbol.asyncIterator]() {
      let next = 0;
      return {
        async next() {
          if (options.failAt === next) throw new Error("source broke");
          if (options.hangAt === next) await new Promise(() => undefined);
          if (next >= n) return { done: true, value: undefined };
          state.pulled++;
          return { done: false, value: next++ };
        },
        async return() {
          state.closed = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { iterable, state };
}

describe("mapOrderedStream", () => {
  it("order kept, at most `concurrency` in flight and `window` taken-but-not-handed, under random latencies (property)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 6 }),
        async (delays, concurrency, extra) => {
          const window = concurrency + extra;
          const { iterable, state } = counting(delays.length);
          let running = 0;
          let peak = 0;
          let peakHeld = 0;
          const handed: number[] = [];
          const count = await mapOrderedStream(
            iterable,
            async (value, index) => {
              expect(index).toBe(value);
              running++;
              peak = Math.max(peak, running);
              peakHeld = Math.max(peakHeld, state.pulled - handed.length);
              await sleep(delays[value] as number);
              running--;
              return value * 10;
            },
            async (result, index) => {
              expect(result).toBe(index * 10);
              handed.push(index);
            },
            { concurrency, window },
          );
          expect(count).toBe(delays.length);
          expect(handed).toEqual(delays.map((_, i) => i));
          expect(peak).toBeLessThanOrEqual(concurrency);
          expect(peakHeld).toBeLessThanOrEqual(window);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);

  it("one slow item lets the others run ahead by at most the window", async () => {
    const { iterable, state } = counting(100);
    let slowDone = false;
    let pulledWhileSlow = 0;
    const run = mapOrderedStream(
      iterable,
      async (value) => {
        if (value === 0) {
          await sleep(100);
          pulledWhileSlow = state.pulled;
          slowDone = true;
        }
        return value;
      },
      async () => undefined,
      { concurrency: 4, window: 10 },
    );
    await run;
    expect(slowDone).toBe(true);
    expect(pulledWhileSlow).toBe(10);
  });

  it("the sink is awaited one result at a time, in order", async () => {
    const events: string[] = [];
    let inSink = 0;
    await mapOrderedStream(
      counting(12).iterable,
      async (value) => {
        await sleep((12 - value) % 4);
        return value;
      },
      async (value) => {
        inSink++;
        expect(inSink).toBe(1);
        events.push(`start ${value}`);
        await sleep(2);
        events.push(`end ${value}`);
        inSink--;
      },
      { concurrency: 4 },
    );
    expect(events).toEqual(Array.from({ length: 12 }, (_, i) => [`start ${i}`, `end ${i}`]).flat());
  });

  it("a worker error rejects, stops pulling and closes the source", async () => {
    const { iterable, state } = counting(1_000);
    const run = mapOrderedStream(
      iterable,
      async (value) => {
        await sleep(1);
        if (value === 5) throw new Error("worker broke");
        return value;
      },
      async () => undefined,
      { concurrency: 2 },
    );
    await expect(run).rejects.toThrow("worker broke");
    const pulled = state.pulled;
    await sleep(30);
    expect(state.pulled).toBe(pulled);
    expect(pulled).toBeLessThan(20);
    expect(state.closed).toBe(true);
  });

  it("a sink error rejects and stops pulling; a source error rejects", async () => {
    const { iterable, state } = counting(1_000);
    const sinkFails = mapOrderedStream(
      iterable,
      async (value) => value,
      async (value) => {
        if (value === 3) throw new Error("sink broke");
      },
      { concurrency: 3 },
    );
    await expect(sinkFails).rejects.toThrow("sink broke");
    const pulled = state.pulled;
    await sleep(30);
    expect(state.pulled).toBe(pulled);
    expect(state.closed).toBe(true);
    const handed: number[] = [];
    const sourceFails = mapOrderedStream(
      counting(10, { failAt: 4 }).iterable,
      async (value) => value,
      async (value) => void handed.push(value),
      { concurrency: 2 },
    );
    await expect(sourceFails).rejects.toThrow("source broke");
  });

  it("an abort rejects at once, even with calls in flight and the source waiting, and closes the source", async () => {
    const controller = new AbortController();
    const { iterable, state } = counting(1_000);
    const calls: Array<{ readonly settled: boolean }> = [];
    const run = mapOrderedStream(
      iterable,
      () => recordSettled(calls, sleep(5_000)),
      async () => undefined,
      { concurrency: 2, signal: controller.signal },
    );
    setTimeout(() => controller.abort(new Error("interrupted")), 20);
    await expect(run).rejects.toThrow("interrupted");
    // Rejected while both calls in flight were still sleeping: it did not wait for them.
    expect(calls.map((call) => call.settled)).toEqual([false, false]);
    expect(state.closed).toBe(true);
    expect(state.pulled).toBe(2);

    const waiting = new AbortController();
    const hanging = mapOrderedStream(
      counting(10, { hangAt: 0 }).iterable,
      async (v) => v,
      async () => undefined,
      {
        concurrency: 1,
        signal: waiting.signal,
      },
    );
    setTimeout(() => waiting.abort(new Error("stop")), 20);
    await expect(hanging).rejects.toThrow("stop");

    const before = new AbortController();
    before.abort(new Error("already"));
    const pre = counting(5);
    await expect(
      mapOrderedStream(
        pre.iterable,
        async (v) => v,
        async () => undefined,
        { concurrency: 1, signal: before.signal },
      ),
    ).rejects.toThrow("already");
    expect(pre.state.pulled).toBe(0);
  });

  it("an empty source resolves 0 without calling the worker or the sink", async () => {
    let calls = 0;
    const count = await mapOrderedStream(
      counting(0).iterable,
      async () => {
        calls++;
      },
      async () => {
        calls++;
      },
      { concurrency: 3 },
    );
    expect(count).toBe(0);
    expect(calls).toBe(0);
  });

  it("progress counts handed results; bad concurrency or window is refused", async () => {
    const seen: number[] = [];
    await mapOrderedStream(
      counting(4).iterable,
      async (v) => v,
      async () => undefined,
      { concurrency: 2, onProgress: (done) => seen.push(done) },
    );
    expect(seen).toEqual([1, 2, 3, 4]);
    await expect(
      mapOrderedStream(
        counting(1).iterable,
        async (v) => v,
        async () => undefined,
        { concurrency: 0 },
      ),
    ).rejects.toThrow(RangeError);
    await expect(
      mapOrderedStream(
        counting(1).iterable,
        async (v) => v,
        async () => undefined,
        { concurrency: 3, window: 2 },
      ),
    ).rejects.toThrow(RangeError);
  });
});
