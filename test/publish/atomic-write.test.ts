// The one atomic whole-file write (src/publish/atomic-write.ts), used by eval reports and demo
// captures: the publication's temp step (exclusive temp, fsync, close, size check), a rename,
// a directory fsync; on any failure the target is untouched and no temp file is left.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeCapture } from "../../src/demo/record.js";
import { writeFileAtomically } from "../../src/eval/sink.js";
import { writeFileAtomic } from "../../src/publish/atomic-write.js";
import { hookedFs, injectedFsError, type PublishFsCall } from "../../bench/_fs-hooks.js";
import { nodePublishFs } from "../../src/publish/fs.js";

const dir = () => mkdtempSync(join(tmpdir(), "lc-atomic-"));

describe("writeFileAtomic", () => {
  it("writes via an exclusive temp sibling, fsyncs it, renames, fsyncs the directory", async () => {
    const d = dir();
    const target = join(d, "report.md");
    writeFileSync(target, "old");
    const calls: PublishFsCall[] = [];
    await writeFileAtomic(target, "new ✓", { fs: hookedFs(nodePublishFs, (call) => void calls.push(call)) });
    expect(readFileSync(target, "utf8")).toBe("new ✓");
    expect(calls.map((c) => c.op)).toEqual(["open", "write", "fsync", "close", "stat", "rename", "open", "fsync", "close"]);
    expect(calls[0]?.path).toMatch(new RegExp(`^${d}/\\.report\\.md\\.[0-9a-f]{16}\\.tmp$`));
    expect(calls[5]).toMatchObject({ op: "rename", to: target });
    expect(readdirSync(d)).toEqual(["report.md"]);
  });

  for (const op of ["write", "fsync", "close", "rename"] as const) {
    it(`a failed ${op} leaves the old file and no temp file`, async () => {
      const d = dir();
      const target = join(d, "capture.json");
      writeFileSync(target, "old");
      const fs = hookedFs(nodePublishFs, (call) => {
        if (call.op === op) throw injectedFsError("EIO", call);
      });
      await expect(writeFileAtomic(target, "new", { fs })).rejects.toMatchObject({ code: "EIO" });
      expect(readFileSync(target, "utf8")).toBe("old");
      expect(readdirSync(d)).toEqual(["capture.json"]);
    });
  }

  it("eval reports and demo captures go through it (no temp file left, parents created for eval)", async () => {
    const d = dir();
    await writeFileAtomically("--report", join(d, "a", "b", "report.md"), "# report\n");
    expect(readFileSync(join(d, "a", "b", "report.md"), "utf8")).toBe("# report\n");
    expect(readdirSync(join(d, "a", "b"))).toEqual(["report.md"]);
    await expect(writeCapture(join(d, "missing", "c.json"), {} as never)).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(d)).toEqual(["a"]);
  });
});
