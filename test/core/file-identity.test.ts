// Two paths of one run are one file whatever the spelling: through a symlinked directory, as a
// symlink (even a dangling one, to a file not yet created), or as a hard link. Distinct files
// stay distinct. refuseSharedFiles names both flags and the paths, JSON-quoted.
import { link, mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { fileIdentity, refuseSharedFiles, sameFile } from "../../src/core/file-identity.js";
import { tempDir } from "../support/publish-fixtures.js";

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  await mkdir(join(dir, "real"));
  await symlink("real", join(dir, "alias"));
});
afterEach(async () => cleanup());

const same = async (a: string, b: string) => sameFile(await fileIdentity(a, dir), await fileIdentity(b, dir));

describe("file identity", () => {
  it("a file reached through a symlinked directory is the same file, before and after it exists", async () => {
    expect(await same("real/r.out", "alias/r.out")).toBe(true);
    await writeFile(join(dir, "real/r.out"), "x");
    expect(await same("real/r.out", "alias/r.out")).toBe(true);
  });

  it("a symlink to a file is that file, and a dangling symlink is the file it would create", async () => {
    await symlink("m.json", join(dir, "summary.md"));
    expect(await same("summary.md", "m.json")).toBe(true);
    await writeFile(join(dir, "m.json"), "{}");
    expect(await same("summary.md", "./m.json")).toBe(true);
  });

  it("a dangling symlink through a chain of symlinks and a symlinked directory resolves to the final file", async () => {
    await symlink("alias/target.json", join(dir, "hop1"));
    await symlink("hop1", join(dir, "hop2"));
    expect(await same("hop2", "real/target.json")).toBe(true);
  });

  it("a hard link is the same file", async () => {
    await writeFile(join(dir, "v.sqlite"), "cache");
    await link(join(dir, "v.sqlite"), join(dir, "log.jsonl"));
    expect(await same("log.jsonl", "v.sqlite")).toBe(true);
    const identity = await fileIdentity("log.jsonl", dir);
    expect(identity.path).toBe(join(await fileIdentity(".", dir).then((d) => d.path), "log.jsonl"));
    expect(identity.inode).not.toBeNull();
  });

  it("a file that does not exist yet under a symlinked directory has its real path and no inode", async () => {
    const identity = await fileIdentity("alias/new/deeper.json", dir);
    expect(identity.path).toBe(join((await fileIdentity("real", dir)).path, "new/deeper.json"));
    expect(identity.inode).toBeNull();
  });

  it("two distinct files, existing or not, are not the same file", async () => {
    await writeFile(join(dir, "a.json"), "a");
    await writeFile(join(dir, "b.json"), "a");
    expect(await same("a.json", "b.json")).toBe(false);
    expect(await same("real/x.json", "real/y.json")).toBe(false);
    expect(await same("a.json", "real/a.json")).toBe(false);
  });

  it("a symlink loop has an identity and does not hang", async () => {
    await symlink("loop-b", join(dir, "loop-a"));
    await symlink("loop-a", join(dir, "loop-b"));
    expect((await fileIdentity("loop-a", dir)).inode).not.toBeNull();
    expect(await same("loop-a", "real/other")).toBe(false);
  });
});

describe("refuseSharedFiles", () => {
  it("a side file aliased to an earlier file refuses, naming both flags and both paths JSON-quoted", async () => {
    const refusal = refuseSharedFiles(
      dir,
      [["--manifest", "m.json"]],
      [
        ["--sarif", "real/r.out"],
        ["--junit", "alias/r.out"],
      ],
    );
    await expect(refusal).rejects.toBeInstanceOf(UsageError);
    await expect(refusal).rejects.toThrow('--junit names the same file as --sarif: "alias/r.out" and "real/r.out" are one file');
  });

  it("the files of the run are not compared with each other; distinct side files pass", async () => {
    await expect(
      refuseSharedFiles(
        dir,
        [
          ["the input", "in.jsonl"],
          ["--manifest", "./in.jsonl"],
        ],
        [
          ["--sarif", "s.sarif"],
          ["--junit", "j.xml"],
        ],
      ),
    ).resolves.toBeUndefined();
  });

  it("a path with a line break is printed JSON-quoted, never raw", async () => {
    const name = "x\n::error title=INJ::pwned.jsonl";
    const refusal = refuseSharedFiles(dir, [["the input", name]], [["--sarif", name]]);
    await expect(refusal).rejects.toThrow(`--sarif names the same file as the input: ${JSON.stringify(name)} is one file`);
    await expect(refusal).rejects.not.toThrow(/\n/);
  });
});
