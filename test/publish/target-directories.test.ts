// A target directory that is missing, a file, or read-only is named as what it is, with its flag.
import { chmod, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkTargetDirectories } from "../../src/ingest/target-checks.js";
import type { PublishTargets } from "../../src/publish/targets.js";

const targets = (manifestPath: string, exportPath: string | null = null) =>
  ({ manifestPath, exportPath, inputPath: null, overwrite: false }) satisfies PublishTargets;

describe("target directories are reported as what they are", () => {
  it("a missing --manifest directory is reported as missing, not as not writable", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-target-dirs-"));
    await expect(checkTargetDirectories(targets(join(dir, "nope", "m.json")))).rejects.toThrow(`--manifest directory does not exist: ${join(dir, "nope")}`);
  });

  it("an --export directory that is a file is reported as not a directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-target-dirs-"));
    await writeFile(join(dir, "file"), "x");
    await expect(checkTargetDirectories(targets(join(dir, "m.json"), join(dir, "file", "e.json")))).rejects.toThrow(
      `--export directory is not a directory: ${join(dir, "file")}`,
    );
  });

  it("a read-only directory is still reported as not writable (unless running as root, which can write anyway)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-target-dirs-"));
    const readOnly = join(dir, "ro");
    await mkdir(readOnly);
    await chmod(readOnly, 0o500);
    const check = checkTargetDirectories(targets(join(readOnly, "m.json")));
    if (process.getuid?.() === 0) await expect(check).resolves.toBeUndefined();
    else await expect(check).rejects.toThrow(`--manifest directory is not writable: ${readOnly}`);
  });
});
