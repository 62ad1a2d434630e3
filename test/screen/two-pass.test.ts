// screenFile's two passes: the whole batch is validated before the first check, the second read
// must be the bytes the first admitted, a stream is copied to a scratch file for it, and every
// scratch file is gone afterwards, whatever happened.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import type { PipelineVerdict } from "../../src/pipeline/verdict.js";
import { screenFile } from "../../src/screen/files.js";

let dir: string;
let scratch: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-two-pass-"));
  scratch = join(dir, "scratch");
  await mkdir(scratch);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const spools = async (): Promise<string[]> => (await readdir(scratch)).filter((name) => name.endsWith(".spool"));

/** A structural-only pipeline that counts its checks and can be slowed down. */
function countingPipeline(delayMs = 0): { check(text: string): Promise<PipelineVerdict>; readonly calls: number; readonly finished: number } {
  const real = new SecurityPipeline({ mode: "full", enableCanary: false });
  let calls = 0;
  let finished = 0;
  return {
    async check(text) {
      calls++;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      finished++;
      return real.check(text);
    },
    get calls() {
      return calls;
    },
    /** Checks whose delay has run out: an abort that rejected "at once" did so while this was 0. */
    get finished() {
      return finished;
    },
  };
}

const lines = (n: number): string => `${Array.from({ length: n }, (_, i) => JSON.stringify(`note ${i} about the river`)).join("\n")}\n`;
let written: Buffer[] = [];
const output = async (chunk: Uint8Array): Promise<void> => void written.push(Buffer.from(chunk));
beforeEach(() => {
  written = [];
});

describe("screenFile two passes", () => {
  it("a bad record at the very end refuses the batch before the first check", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, `${lines(300)}{"text":"a","text":"b"}\n`);
    const pipeline = countingPipeline();
    await expect(screenFile({ input: path, pipeline, output, scratchDir: scratch })).rejects.toMatchObject({ code: "input_refused" });
    expect(pipeline.calls).toBe(0);
    expect(written).toEqual([]);
    expect(await spools()).toEqual([]);
  });

  it("a file changed between the two reads is refused, nothing is written", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, lines(20));
    const pipeline = countingPipeline();
    const run = screenFile({
      input: path,
      pipeline,
      output,
      scratchDir: scratch,
      // Same length, other bytes: only the digest can tell.
      afterRead: () => writeFile(path, lines(20).replace("note 3 ", "note X ")),
    });
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: expect.stringMatching(/input changed while it was being screened/) });
    expect(written).toEqual([]);
    expect(await spools()).toEqual([]);
  });

  it("a file that grew a bad line between the reads is refused", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, lines(5));
    const run = screenFile({ input: path, pipeline: countingPipeline(), output, scratchDir: scratch, afterRead: () => writeFile(path, `${lines(5)}[1]\n`) });
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: expect.stringMatching(/input changed/) });
    expect(written).toEqual([]);
  });

  it("the new items of a file that grew between the reads are never checked", async () => {
    const path = join(dir, "in.jsonl");
    await writeFile(path, lines(5));
    const pipeline = countingPipeline();
    const run = screenFile({ input: path, pipeline, output, scratchDir: scratch, afterRead: () => writeFile(path, lines(5_000)) });
    await expect(run).rejects.toMatchObject({ code: "input_refused", message: expect.stringMatching(/input changed/) });
    expect(pipeline.calls).toBeLessThanOrEqual(5);
    expect(written).toEqual([]);
    expect(await spools()).toEqual([]);
  });

  it("stdin is copied to a 0600 .spool file in the scratch dir, read back, and removed", async () => {
    let seen: string[] = [];
    let mode = 0;
    const result = await screenFile({
      input: Readable.from([Buffer.from(lines(7))]),
      pipeline: countingPipeline(),
      output,
      scratchDir: scratch,
      afterRead: async () => {
        seen = await spools();
        mode = (await stat(join(scratch, seen[0] as string))).mode & 0o777;
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(/^\.little-canary-screen\.[0-9a-f]{12}\.input\.spool$/);
    expect(mode).toBe(0o600);
    expect(result.summary.total).toBe(7);
    expect(JSON.parse(Buffer.concat(written).toString("utf8")).items).toHaveLength(7);
    expect(await spools()).toEqual([]);
  });

  it("a named pipe given by path is read once and copied like stdin, not waited on for a second writer", async () => {
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    // The writer opens the pipe, writes the batch once and closes it.
    const writer = writeFile(fifo, lines(4));
    let seen: string[] = [];
    const result = await screenFile({
      input: fifo,
      pipeline: countingPipeline(),
      output,
      scratchDir: scratch,
      afterRead: async () => void (seen = await spools()),
    });
    await writer;
    expect(seen).toHaveLength(1);
    expect(result.summary.total).toBe(4);
    expect(JSON.parse(Buffer.concat(written).toString("utf8")).items).toHaveLength(4);
    expect(await spools()).toEqual([]);
  });

  it("the stdin copy is removed after a refusal, and after a failed output", async () => {
    const refused = screenFile({ input: Readable.from([Buffer.from(`${lines(3)}not json\n`)]), pipeline: countingPipeline(), output, scratchDir: scratch });
    await expect(refused).rejects.toMatchObject({ code: "input_refused" });
    expect(await spools()).toEqual([]);
    const broken = screenFile({
      input: Readable.from([Buffer.from(lines(3))]),
      pipeline: countingPipeline(),
      output: async () => {
        throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      },
      scratchDir: scratch,
    });
    await expect(broken).rejects.toThrow("EPIPE");
    expect(await spools()).toEqual([]);
  });

  it("an abort while stdin is still open rejects at once and removes the copy", async () => {
    const stdin = new PassThrough();
    stdin.write(Buffer.from(lines(2)));
    const controller = new AbortController();
    const run = screenFile({ input: stdin, pipeline: countingPipeline(), output, scratchDir: scratch, signal: controller.signal });
    // The copy of stdin exists once the first pass has started (retried until then, not a fixed wait).
    await vi.waitFor(async () => expect(await spools()).toHaveLength(1), { timeout: 20_000, interval: 10 });
    controller.abort(new Error("interrupted"));
    await expect(run).rejects.toThrow("interrupted");
    expect(await spools()).toEqual([]);
    stdin.destroy();
  });

  it("an abort during the checks rejects at once and removes every scratch file", async () => {
    const controller = new AbortController();
    const pipeline = countingPipeline(5_000);
    const run = screenFile({
      input: Readable.from([Buffer.from(lines(50))]),
      pipeline,
      output,
      scratchDir: scratch,
      concurrency: 4,
      signal: controller.signal,
    });
    while (pipeline.calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await spools()).toHaveLength(2);
    controller.abort(new Error("interrupted"));
    await expect(run).rejects.toThrow("interrupted");
    // Rejected before any check in flight finished its 5 s: it did not wait for them.
    expect(pipeline.finished).toBe(0);
    expect(await spools()).toEqual([]);
    expect(pipeline.calls).toBe(4);
    expect(written).toEqual([]);
  });

  it("maxItems 0 and maxTotalBytes 0 mean no limit", async () => {
    const result = await screenFile({
      input: Readable.from([Buffer.from(lines(1_200))]),
      pipeline: countingPipeline(),
      output,
      scratchDir: scratch,
      concurrency: 8,
      limits: { maxItems: 0, maxTotalBytes: 0 },
    });
    expect(result.summary.total).toBe(1_200);
    await expect(
      screenFile({ input: Readable.from([Buffer.from(lines(1_001))]), pipeline: countingPipeline(), output, scratchDir: scratch }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/limit of 1000 items \(--max-items\)/) });
  });
});
