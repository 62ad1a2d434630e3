// A whole-file write never replaces a named pipe or a device with a regular file: the report
// flags, ingest's targets (even with --overwrite) and the one atomic write refuse them by name,
// and leave them as they were.
import { execFileSync } from "node:child_process";
import { lstat, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { specialFileKind } from "../../src/core/file-identity.js";
import { writeFileAtomic } from "../../src/publish/atomic-write.js";
import { runCli } from "../support/cli.js";

let dir: string;
let fifo: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-special-"));
  fifo = join(dir, "pipe");
  execFileSync("mkfifo", ["-m", "600", fifo]);
  await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ text: "Returns are accepted within 30 days." })}\n`);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const stillAPipe = async () => expect((await lstat(fifo)).isFIFO()).toBe(true);

describe("special files as write targets", () => {
  it("specialFileKind names a pipe, a device and a symlink to either, and passes files, symlinks to files or nothing, and missing paths", async () => {
    expect(await specialFileKind(fifo)).toBe("a named pipe");
    expect(await specialFileKind("/dev/null")).toBe("a character device");
    await symlink(fifo, join(dir, "to-pipe"));
    await symlink("/dev/null", join(dir, "to-device"));
    expect(await specialFileKind(join(dir, "to-pipe"))).toBe("a symlink to a named pipe");
    expect(await specialFileKind(join(dir, "to-device"))).toBe("a symlink to a character device");
    await symlink(join(dir, "in.jsonl"), join(dir, "to-file"));
    await symlink(join(dir, "missing"), join(dir, "dangling"));
    for (const name of ["in.jsonl", "to-file", "dangling", "missing"]) expect(await specialFileKind(join(dir, name))).toBeNull();
  });

  it("a report or target path that is a symlink to a pipe or a device (as /dev/stdout is) is refused, and the link is left as it was", async () => {
    // `/dev/stdout` is a symlink to /proc/self/fd/1, a pipe or a terminal; replacing it would take it from every process.
    const out = join(dir, "stdout");
    await symlink(fifo, out);
    const run = await runCli(["screen", "in.jsonl", "--no-canary", "--junit", "stdout"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`error: --junit: cannot write the report ${out} (it is a symlink to a named pipe, not a regular file)`);
    expect((await lstat(out)).isSymbolicLink()).toBe(true);
    await stillAPipe();
    const toDevice = join(dir, "null");
    await symlink("/dev/null", toDevice);
    const ingest = await runCli(["ingest", "in.jsonl", "--manifest", "null", "--overwrite", "--no-canary"], { cwd: dir });
    expect(ingest.code).toBe(3);
    expect(ingest.stderr).toContain(`error: --manifest ${toDevice} is a symlink to a character device, not a regular file: name a file to write`);
    expect((await lstat(toDevice)).isSymbolicLink()).toBe(true);
  });

  it.each(["--sarif", "--junit"])("screen %s naming a pipe is refused before the run, naming the flag", async (flag) => {
    const run = await runCli(["screen", "in.jsonl", "--no-canary", flag, "pipe"], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`error: ${flag}: cannot write the report ${fifo} (it is a named pipe, not a regular file)`);
    await stillAPipe();
  });

  it("ingest --export naming a pipe is refused even with --overwrite, and nothing is deleted", async () => {
    const run = await runCli(["ingest", "in.jsonl", "--manifest", "m.json", "--export", "pipe", "--overwrite", "--no-canary"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`error: --export ${fifo} is a named pipe, not a regular file: name a file to write`);
    await stillAPipe();
  });

  it("the atomic write itself refuses a pipe", async () => {
    await expect(writeFileAtomic(fifo, "x")).rejects.toThrow(`${fifo} is a named pipe, not a regular file: refusing to replace it`);
    await stillAPipe();
  });
});
