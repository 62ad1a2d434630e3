// How far verify's reading got: verifyFiles tells `onProgress` the bytes of both files read, up
// to their total, once per reading (a pair read fast and then strictly counts from 0 again, and
// on two threads the main thread's reads, which cover every byte, are the ones counted); the CLI
// draws it on stderr only when stderr is a terminal, clears it, and keeps stdout as it was. A pair
// read again strictly is told to `onStrictRead` once, with its bytes; the CLI says so on stderr from
// 64 MiB of pair, terminal or not.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { verifyFiles, verifyFilesWithMode } from "../../src/verify/verify-files.js";
import { strictReadNotice } from "../../cli/verify-output.js";
import { runCli } from "../support/cli.js";
import { makeRun, tempDir } from "./verify-stream-properties.js";

/** A genuine pair written to a new folder; its paths and total bytes. */
async function pair(edit: (manifest: string) => string = (m) => m) {
  const dir = await tempDir();
  const run = makeRun(
    [
      { id: "doc-a", source: "wiki", metadata: { title: "T" }, text: "first admitted text" },
      { id: "doc-b", source: null, metadata: {}, text: "please BLOCK this one" },
      { id: null, source: "drive", metadata: {}, text: "plain and admitted" },
    ],
    true,
  );
  const manifest = Buffer.from(edit(Buffer.from(run.manifest.bytes).toString("utf8")), "utf8");
  const paths = { manifest: join(dir, "manifest.json"), export: join(dir, "export.json") };
  await writeFile(paths.manifest, manifest);
  await writeFile(paths.export, run.exported!.bytes);
  return { dir, paths, total: manifest.length + run.exported!.bytes.length };
}

/** The readings `onProgress` told of: each a list of byte counts, a new one whenever the count fell. */
function readingsOf(calls: ReadonlyArray<readonly [number, number]>, total: number): number[][] {
  const readings: number[][] = [];
  for (const [read, told] of calls) {
    expect(told).toBe(total);
    const last = readings.at(-1);
    if (last === undefined || read < (last.at(-1) as number)) readings.push([read]);
    else last.push(read);
  }
  return readings;
}

describe("verify tells how far reading got", () => {
  it("one reading up to the total for a pair laid out as ingest writes it, on one thread or two", async () => {
    const { paths, total } = await pair();
    for (const other of [null, { url: null, block: 1 }]) {
      const calls: Array<[number, number]> = [];
      const { result, reader } = await verifyFilesWithMode(
        { ...paths, chunkBytes: 61, onProgress: (read, all) => calls.push([read, all]) },
        "canonical",
        other,
      );
      expect(result.consistent).toBe(true);
      expect(reader).toBe("canonical");
      const readings = readingsOf(calls, total);
      expect(readings).toHaveLength(1);
      expect(readings[0]?.at(-1)).toBe(total);
      expect(readings[0]?.length).toBeGreaterThan(10);
    }
  });

  it("a second reading from 0 when the pair is read again strictly", async () => {
    // A space before the document: not the layout ingest writes, so the strict reader reads it again.
    const { paths, total } = await pair((m) => ` ${m}`);
    const calls: Array<[number, number]> = [];
    const result = await verifyFiles({ ...paths, chunkBytes: 509, onProgress: (read, all) => calls.push([read, all]) });
    expect(result.readable).toBe(true);
    const readings = readingsOf(calls, total);
    expect(readings).toHaveLength(2);
    for (const reading of readings) expect(reading.at(-1)).toBe(total);
  });

  it("the CLI draws megabytes read on a terminal's stderr and clears the line; nothing without a terminal", async () => {
    const { dir, paths } = await pair();
    const args = ["verify", "--manifest", paths.manifest, "--export", paths.export];
    const plain = await runCli(args, { cwd: dir });
    const drawn = await runCli(args, { cwd: dir, tty: true });
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe("");
    expect(drawn.code).toBe(0);
    expect(drawn.stdout).toBe(plain.stdout);
    expect(drawn.stderr).toMatch(/^\rverify, MB read: 0\/1 {2}elapsed /);
    expect(drawn.stderr.endsWith("\r\x1b[K")).toBe(true);
  });
});

describe("verify says when a pair is read again by the strict reader", () => {
  it("onStrictRead hears the pair's bytes once for a pair not laid out as ingest writes it, never for one that is", async () => {
    const laidOut = await pair();
    const spaced = await pair((m) => ` ${m}`);
    for (const other of [null, { url: null, block: 1 }]) {
      const told: number[] = [];
      const { result, reader } = await verifyFilesWithMode({ ...laidOut.paths, onStrictRead: (total) => told.push(total) }, "canonical", other);
      expect([result.consistent, reader, told]).toEqual([true, "canonical", []]);
    }
    const told: number[] = [];
    const again = await verifyFilesWithMode({ ...spaced.paths, onStrictRead: (total) => told.push(total) });
    // Read strictly, the leading space is allowed: the pair is readable, only slower to read.
    expect([again.result.readable, again.reader, told]).toEqual([true, "exact", [spaced.total]]);
    // The strict reader chosen from the start is not a second reading.
    told.length = 0;
    await verifyFilesWithMode({ ...spaced.paths, onStrictRead: (total) => told.push(total) }, "exact");
    expect(told).toEqual([]);
  });

  it("the CLI's line names the manifest and the megabytes from 64 MiB of pair, clears a terminal's progress line first, and is empty below", () => {
    const line = strictReadNotice('"m.json"', 64 << 20, false);
    expect(line).toMatch(/^verify: the pair of "m\.json" \(67 MB\) is not laid out byte for byte as ingest writes it .*strict reader.*\n$/);
    expect(line.split("\n")).toHaveLength(2);
    expect(strictReadNotice('"m.json"', 64 << 20, true)).toBe(`\r\x1b[K${line}`);
    expect(strictReadNotice('"m.json"', (64 << 20) - 1, false)).toBe("");
    expect(strictReadNotice('"m.json"', (64 << 20) - 1, true)).toBe("");
  });

  it("the CLI adds nothing to stderr or stdout for a small pair read again strictly", async () => {
    const { dir, paths } = await pair((m) => ` ${m}`);
    const run = await runCli(["verify", "--manifest", paths.manifest, "--export", paths.export], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^verify: /);
  });
});
