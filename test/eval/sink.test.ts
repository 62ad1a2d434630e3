// The run record's writer under a failing file system: the disk fills part-way through a line (a
// short write, then ENOSPC), as a real full disk does. The fault is injected through the sink's
// EvalFs over real temp files; nothing is monkey-patched.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { LittleCanaryError } from "../../src/core/errors.js";
import { nodeEvalFs, openFileSink, removeEarlierOutput, type EvalFs, type RecordFile } from "../../src/eval/sink.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-eval-sink-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function enospc(): NodeJS.ErrnoException {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", syscall: "write" });
}

/** The real file system, whose record file holds at most `capacity` bytes: the write that reaches it is short, the next fails with ENOSPC. */
function fullAfter(capacity: number, options: { truncateFails?: boolean; stall?: boolean } = {}): EvalFs {
  return {
    ...nodeEvalFs,
    async openRecord(path) {
      const real = await nodeEvalFs.openRecord(path);
      const file: RecordFile = {
        async write(data, offset, length, position) {
          if (options.stall === true) return { bytesWritten: 0 };
          const room = capacity - position;
          if (room <= 0) throw enospc();
          return real.write(data, offset, Math.min(length, room), position);
        },
        truncate: (length) => (options.truncateFails === true ? Promise.reject(enospc()) : real.truncate(length)),
        datasync: () => real.datasync(),
        close: () => real.close(),
      };
      return file;
    },
  };
}

const line = (n: number): string => `${JSON.stringify({ type: "result", index: n, pad: "x".repeat(40) })}\n`;

describe("the run record on a full disk", () => {
  test("a disk that fills mid-line leaves only whole lines, and the error names the flag, the file and ENOSPC", async () => {
    const path = join(dir, "run.jsonl");
    const sink = await openFileSink("--output", path, fullAfter(line(0).length * 2 + 10));
    await sink.write(line(0));
    await sink.write(line(1));
    const error = await sink.write(line(2)).catch((e: unknown) => e);
    await sink.close();
    expect(error).toBeInstanceOf(LittleCanaryError);
    expect((error as LittleCanaryError).code).toBe("io");
    expect((error as Error).message).toBe(`--output: cannot write ${path} (ENOSPC; it keeps only whole lines and has no completion line)`);
    const text = await readFile(path, "utf8");
    expect(text).toBe(line(0) + line(1));
    // Once a write failed the record takes no more lines: the same error again, nothing appended.
    await expect(sink.write(line(3))).rejects.toBe(error);
    expect(await readFile(path, "utf8")).toBe(text);
  });

  test("the first line cut short leaves an empty record, not a torn header", async () => {
    const path = join(dir, "run.jsonl");
    const sink = await openFileSink("--output", path, fullAfter(7));
    await expect(sink.write(line(0))).rejects.toThrow(/ENOSPC/);
    await sink.close();
    expect(await readFile(path, "utf8")).toBe("");
  });

  test("when the cut-back fails too, the error says the last line may be incomplete", async () => {
    const path = join(dir, "run.jsonl");
    const sink = await openFileSink("--output", path, fullAfter(line(0).length + 5, { truncateFails: true }));
    await sink.write(line(0));
    await expect(sink.write(line(1))).rejects.toThrow("(ENOSPC; its last line may be incomplete and has no completion line)");
    await sink.close();
  });

  test("a write that makes no progress fails naming the file instead of looping", async () => {
    const path = join(dir, "run.jsonl");
    const sink = await openFileSink("--output", path, fullAfter(1000, { stall: true }));
    await expect(sink.write(line(0))).rejects.toThrow(`--output: cannot write ${path} (no byte written; it keeps only whole lines`);
    await sink.close();
  });

  test("removing an earlier output that is not there is no error; any other failure names the flag", async () => {
    await expect(removeEarlierOutput("--report", join(dir, "none.html"))).resolves.toBeUndefined();
    const failing: EvalFs = { ...nodeEvalFs, unlink: () => Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" })) };
    await expect(removeEarlierOutput("--report", join(dir, "r.html"), failing)).rejects.toThrow(`--report: cannot write ${join(dir, "r.html")} (EACCES)`);
  });
});
