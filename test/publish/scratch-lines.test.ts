// scratchLines: the lines of a scratch file through one reused buffer give back every line's
// bytes exactly (lines across chunk boundaries, lines longer than a chunk, empty lines), and a
// file that does not end with a line break is refused.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ScratchFile, ScratchFileError, scratchLines } from "../../src/publish/scratch-file.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-lines-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lines read back, each copied as soon as it is handed out (the view is reused after). */
async function readBack(lines: readonly Buffer[], trailing = "\n"): Promise<Buffer[]> {
  const spool = await ScratchFile.create(join(dir, "t.json"), "lines");
  try {
    for (const line of lines) await spool.append(Buffer.concat([line, Buffer.from(trailing)]));
    await spool.seal();
    const out: Buffer[] = [];
    for await (const { bytes, start, end } of scratchLines(spool, "the test's scratch file")) out.push(Buffer.from(bytes.subarray(start, end)));
    return out;
  } finally {
    await spool.remove();
  }
}

// Lines of bytes without a line break: some tiny, some around a chunk (1 MiB), one bigger than two.
const lineBytes = (size: number, seed: number): Buffer => Buffer.alloc(size, (seed % 250) + 1 === 10 ? 11 : (seed % 250) + 1);

describe("scratchLines", () => {
  it("gives back every line exactly, across chunk boundaries and for lines longer than a chunk", async () => {
    const sizes = [0, 1, 5, 1_048_570, 3, 1_048_576, 0, 2_500_000, 7, 700_000, 400_000];
    const lines = sizes.map((size, i) => lineBytes(size, i));
    const back = await readBack(lines);
    expect(back.map((b) => b.byteLength)).toEqual(sizes);
    back.forEach((b, i) => expect(b.equals(lines[i] as Buffer)).toBe(true));
  });

  it("random line sets read back as written", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 300_000 }), { minLength: 1, maxLength: 12 }), async (sizes) => {
        const lines = sizes.map((size, i) => lineBytes(size, i * 7 + size));
        const back = await readBack(lines);
        expect(back.length).toBe(lines.length);
        back.forEach((b, i) => expect(b.equals(lines[i] as Buffer)).toBe(true));
      }),
      { numRuns: 25 },
    );
  });

  it("a file that ends inside a line is refused, naming it", async () => {
    await expect(readBack([Buffer.from("complete"), Buffer.from("cut off")], "")).rejects.toThrow(ScratchFileError);
    await expect(readBack([Buffer.from("a")], "")).rejects.toThrow(/the test's scratch file .* ends inside a line/);
  });
});
