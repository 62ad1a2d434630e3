// The in-memory `screenBatch`: the one screen path fed an array. Its scheduling is the one it
// always had: a free lane takes the next item, however far the others have run ahead of a slow one.
import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { PipelineVerdict } from "../../src/pipeline/verdict.js";
import { screenBatch } from "../../src/screen/screen-batch.js";
import { UsageError } from "../../src/core/errors.js";

/** A pipeline that answers one fixed verdict at once, except for "slow", which waits for `release`. */
async function gatedPipeline(): Promise<{ check(text: string): Promise<PipelineVerdict>; started: string[]; release: () => void }> {
  const verdict = await new SecurityPipeline({ mode: "full", enableCanary: false }).check("What is the capital of France?");
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const started: string[] = [];
  return {
    started,
    release,
    async check(text) {
      started.push(text);
      if (text === "slow") await gate;
      return verdict;
    },
  };
}

describe("screenBatch", () => {
  it("at concurrency 2, a first item that waits does not hold back the rest; the document keeps input order", async () => {
    const pipeline = await gatedPipeline();
    const texts = ["slow", "a", "b", "c", "d", "e", "f", "g"];
    const progress: Array<[number, number]> = [];
    const screening = screenBatch(texts, pipeline, { concurrency: 2, onProgress: (done, total) => progress.push([done, total]) });
    // Every other check answers without a timer, so a few event-loop turns let the free lane run
    // through all of them while the first still waits.
    for (let turn = 0; turn < 20 && pipeline.started.length < texts.length; turn++) await nextTurn();
    expect(pipeline.started).toEqual(texts);
    pipeline.release();
    const document = await screening;
    expect(document.items.map((item) => item.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(document.total).toBe(8);
    expect(progress.map(([done]) => done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(progress.every(([, total]) => total === 8)).toBe(true);
  });

  it("items that are not an array, or a pipeline without check, are a usage error naming the call's shape", async () => {
    const p = new SecurityPipeline({ enableCanary: false });
    const shape = /^screenBatch\(items, pipeline, options\?\) takes an array of items first/;
    for (const items of ["hello", null, { items: ["a"] }, undefined]) {
      await expect(screenBatch(items as never, p)).rejects.toThrow(UsageError);
      await expect(screenBatch(items as never, p)).rejects.toThrow(shape);
    }
    await expect(screenBatch(["a"], {} as never)).rejects.toThrow(shape);
    await expect(screenBatch(p as never, ["a"] as never)).rejects.toThrow("(the first argument is the pipeline: pass the items first)");
  });

  it("an invalid concurrency is refused", async () => {
    const pipeline = await gatedPipeline();
    for (const concurrency of [0, 1.5, "2", Number.NaN]) {
      await expect(screenBatch(["a"], pipeline, { concurrency: concurrency as number })).rejects.toThrow(
        new UsageError("screenBatch option concurrency must be a whole number of 1 or more"),
      );
    }
    expect(pipeline.started).toEqual([]);
  });

  it("a cache without lookup and store, an unknown limit and a bad limit are refused naming the option, before any check", async () => {
    const pipeline = await gatedPipeline();
    await expect(screenBatch(["a"], pipeline, { cache: "x" as never })).rejects.toThrow(
      new UsageError("screenBatch option cache must be an object with lookup and store methods"),
    );
    await expect(screenBatch(["a"], pipeline, { limits: { maxItem: 1 } as never })).rejects.toThrow(
      /unknown screenBatch limits option "maxItem"; did you mean 'maxItems'\?/,
    );
    await expect(screenBatch(["a"], pipeline, { limits: { maxItems: -1 } })).rejects.toThrow(new UsageError("limits.maxItems must be a non-negative integer"));
    // A falsy cache is no cache, as before.
    await expect(screenBatch([], pipeline, { cache: null as never })).resolves.toMatchObject({ total: 0 });
    expect(pipeline.started).toEqual([]);
  });
});
