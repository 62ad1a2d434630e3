// The library's run entry points refuse an option they do not know, so a misspelt one (`exprot`,
// `polcy`, `concurrrency`) is an error before anything is read or written, never a run without it.
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { ingestFiles } from "../../src/ingest/files.js";
import { ingestRecords } from "../../src/ingest/run.js";
import { screenBatch } from "../../src/screen/screen-batch.js";
import { screenFile } from "../../src/screen/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-options-"));
  await writeFile(join(dir, "in.jsonl"), '{"text":"A note about rivers."}\n');
});
afterEach(() => rm(dir, { recursive: true, force: true }));

// No canary: nothing here gets as far as a check.
const pipeline = () => new SecurityPipeline({ enableCanary: false });

describe("library options are checked, not ignored", () => {
  it("ingestFiles refuses a misspelt export and writes nothing", async () => {
    const options = { input: "in.jsonl", manifest: "m.json", exprot: "e.json", pipeline: pipeline(), cwd: dir };
    await expect(ingestFiles(options as never)).rejects.toThrow(new UsageError(`unknown ingestFiles option "exprot"; did you mean 'export'?`));
    expect((await readdir(dir)).sort()).toEqual(["in.jsonl"]);
  });

  it("ingestRecords refuses a misspelt policy", async () => {
    await expect(ingestRecords(pipeline(), { inputs: ["a note"] }, { polcy: { max_items: 1 } } as never)).rejects.toThrow(
      new UsageError(`unknown ingestRecords option "polcy"; did you mean 'policy'?`),
    );
  });

  it("ingestRecords refuses bare strings in place of { inputs }, saying which forms it takes", async () => {
    await expect(ingestRecords(pipeline(), ["a note"] as never)).rejects.toThrow(
      /^ingestRecords\(pipeline, \{ inputs: \[\.\.\.\] \}, options\?\) takes the pipeline first/,
    );
    // The arguments the wrong way round, or the pipeline inside the inputs object: the message says which comes first.
    await expect(ingestRecords({ inputs: ["a note"] } as never, pipeline() as never)).rejects.toThrow(
      /the first argument is the inputs: pass the pipeline first\)$/,
    );
    await expect(ingestRecords({ inputs: ["a note"], pipeline: pipeline() } as never, undefined as never)).rejects.toThrow(/takes the pipeline first/);
    await expect(ingestRecords(pipeline(), { input: ["a note"] } as never)).rejects.toThrow(UsageError);
  });

  it("screenBatch refuses a misspelt concurrency", async () => {
    await expect(screenBatch(["a note"], pipeline(), { concurrrency: 4 } as never)).rejects.toThrow(
      new UsageError(`unknown screenBatch option "concurrrency"; did you mean 'concurrency'?`),
    );
  });

  it("screenFile refuses a misspelt option before reading", async () => {
    const options = { input: "in.jsonl", cwd: dir, pipeline: pipeline(), output: async () => {}, concurency: 2 };
    await expect(screenFile(options as never)).rejects.toThrow(new UsageError(`unknown screenFile option "concurency"; did you mean 'concurrency'?`));
  });

  it("screenFile without output is refused before reading, not screened and thrown away", async () => {
    await expect(screenFile({ input: "in.jsonl", cwd: dir, pipeline: pipeline() } as never)).rejects.toThrow(
      new UsageError("screenFile needs output, a function that takes each chunk of the batch document"),
    );
  });

  it("each runs as before with only known options", async () => {
    const run = await ingestRecords(pipeline(), { inputs: ["a note"] }, { concurrency: 1, exportRequested: true });
    expect(run.summary.head.counts.admitted + run.summary.head.counts.held).toBe(1);
    const batch = await screenBatch(["a note"], pipeline(), { concurrency: 1 });
    expect(batch.total).toBe(1);
  });
});
