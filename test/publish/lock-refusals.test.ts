// What the publication lock says when the file system refuses it for a reason other than another
// holder: a directory that cannot be written is named as such, with the flag that named the target.
import { tmpdir } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";
import { afterEach, describe, expect, it, vi } from "vitest";
import { acquirePublicationLock } from "../../src/publish/lock.js";

afterEach(() => vi.restoreAllMocks());

function refusedWith(code: string): void {
  // Root passes permission checks, so the refusal is the file system's answer, scripted.
  vi.spyOn(lockfile, "lock").mockRejectedValue(Object.assign(new Error(`${code}: refused`), { code }));
}

describe("publication lock refusals", () => {
  for (const code of ["EACCES", "EPERM", "EROFS"]) {
    it(`reports ${code} as a directory that is not writable, naming the flag and the directory`, async () => {
      refusedWith(code);
      await expect(acquirePublicationLock(join("/srv", "out", "e.json"), { flag: "--export" })).rejects.toMatchObject({
        code: "publish",
        message: `--export directory is not writable: /srv/out (${code})`,
      });
    });
  }

  it("reports ENOENT in a directory that exists (as /proc answers) as one that takes no new files, and in a missing one as missing", async () => {
    refusedWith("ENOENT");
    const existing = tmpdir();
    await expect(acquirePublicationLock(join(existing, "m.json"))).rejects.toMatchObject({
      code: "publish",
      message: `--manifest directory does not take new files (ENOENT): ${existing}`,
    });
    await expect(acquirePublicationLock(join(existing, "no-such-dir-lc", "m.json"))).rejects.toMatchObject({
      code: "publish",
      message: `--manifest directory does not exist: ${join(existing, "no-such-dir-lc")}`,
    });
  });

  it("reports any other failure as a lock that could not be taken, with its code", async () => {
    refusedWith("EIO");
    await expect(acquirePublicationLock(join("/srv", "out", "m.json"))).rejects.toMatchObject({
      code: "publish",
      message: "could not lock /srv/out/m.json (EIO)",
    });
  });
});
