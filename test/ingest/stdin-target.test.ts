// A streamed input read from a file (`ingest - --overwrite < records.jsonl`) is known by its
// inode: a target that is that file is refused before --overwrite deletes anything, as a target
// that is the input path is.
import { createReadStream, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { PublishError } from "../../src/publish/targets.js";

const INPUT = `${JSON.stringify({ text: "Returns are accepted within 30 days." })}\n${JSON.stringify({ text: "Shipping takes three days." })}\n`;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-stdin-target-"));
  await writeFile(join(dir, "corpus.jsonl"), INPUT);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A stream over the open file at `name`, as process.stdin is when redirected from it. */
const openedStream = (name: string) => createReadStream("", { fd: openSync(join(dir, name), "r") });

const run = (input: NodeJS.ReadableStream, manifest: string, exported: string | null) =>
  ingestFiles({
    input: input as never,
    manifest,
    ...(exported === null ? {} : { export: exported }),
    cwd: dir,
    overwrite: true,
    pipeline: new SecurityPipeline({ enableCanary: false }),
  });

describe("a streamed input that is an open file", () => {
  it.each([
    ["--export", "m.json", "corpus.jsonl"],
    ["--manifest", "corpus.jsonl", null],
  ] as const)("is never a %s target: refused, and the file is intact", async (flag, manifest, exported) => {
    const stream = openedStream("corpus.jsonl");
    try {
      const error = await run(stream, manifest, exported).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PublishError);
      expect((error as Error).message).toBe(`${flag} must not be the input file`);
    } finally {
      stream.destroy();
    }
    expect(await readFile(join(dir, "corpus.jsonl"), "utf8")).toBe(INPUT);
  });

  it("another open file, or a stream with no file behind it, runs as before", async () => {
    await writeFile(join(dir, "other.jsonl"), INPUT);
    const stream = openedStream("other.jsonl");
    await expect(run(stream, "m.json", "e.json")).resolves.toBeDefined();
    const piped = new PassThrough();
    piped.end(INPUT);
    await expect(run(piped, "m2.json", "e2.json")).resolves.toBeDefined();
    expect(await readFile(join(dir, "corpus.jsonl"), "utf8")).toBe(INPUT);
  });
});
