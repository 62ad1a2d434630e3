// The one rule of an output path that may already hold a file: it is replaced only when nothing is
// there, an empty file, or an earlier output of the command, or (as the command chooses) a
// non-regular path or a file that cannot be read; anything else is refused with one message that
// names the flag and the path and never the file's content.
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { refuseToReplaceOtherFile, type EarlierOutputCheck, type ReadHead } from "../../src/core/replace-guard.js";
import { tempDirPerTest } from "../support/temp-dir.js";

const temp = tempDirPerTest("lc-replace-guard-");

const MARK = "<!-- ours -->";
/** The check of a command whose outputs start with MARK; `seen` collects what the recogniser was shown. */
function check(overrides: Partial<EarlierOutputCheck> = {}, seen: { head: string; whole: boolean }[] = []): EarlierOutputCheck {
  return {
    flag: "--out:",
    what: "an output of ours",
    headBytes: 16,
    isEarlierOutput: (head, whole) => {
      seen.push({ head: head.toString("utf8"), whole });
      return head.toString("utf8").startsWith(MARK);
    },
    unreadable: "refuse",
    notAFile: "replace",
    ...overrides,
  };
}

/** A read that fails as a file without read permission does (as root, chmod cannot make one). */
const unreadableRead: ReadHead = async () => ({ unreadable: "EACCES", code: "EACCES" });

describe("refuseToReplaceOtherFile", () => {
  it("a path where nothing exists, or an earlier output, may be replaced; the recogniser sees the head and whether it is the whole file", async () => {
    await expect(refuseToReplaceOtherFile(join(temp.dir, "absent.html"), check())).resolves.toBeUndefined();
    const seen: { head: string; whole: boolean }[] = [];
    await writeFile(join(temp.dir, "short.html"), MARK);
    await writeFile(join(temp.dir, "long.html"), `${MARK} and a long body after it`);
    await refuseToReplaceOtherFile(join(temp.dir, "short.html"), check({}, seen));
    await refuseToReplaceOtherFile(join(temp.dir, "long.html"), check({}, seen));
    expect(seen).toEqual([
      { head: MARK, whole: true },
      { head: `${MARK} an`, whole: false },
    ]);
  });

  it("any other file is refused with the flag, the path, what an output is and the hint, never its content", async () => {
    const notes = join(temp.dir, "notes.md");
    await writeFile(notes, "SECRET notes\n");
    const error = await refuseToReplaceOtherFile(notes, check({ hint: "(remove it or name another file)" })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).code).toBe("usage");
    expect((error as Error).message).toBe(`--out: ${notes} exists and is not an output of ours; it is never replaced (remove it or name another file)`);
    // The path is shown as the caller asks; without a hint the message ends at "never replaced".
    await expect(refuseToReplaceOtherFile(notes, check({ flag: "index: --out", shownPath: '"notes.md"' }))).rejects.toThrow(
      /^index: --out "notes\.md" exists and is not an output of ours; it is never replaced$/,
    );
    expect(await readFile(notes, "utf8")).toBe("SECRET notes\n");
  });

  it("a path with a line break in its name is shown escaped", async () => {
    const odd = join(temp.dir, "a\n::error::x");
    await writeFile(odd, "other");
    await expect(refuseToReplaceOtherFile(odd, check())).rejects.toThrow(`--out: ${JSON.stringify(odd)} exists`);
  });

  it("a directory and a symlink are left to the write with notAFile 'replace', and refused with 'refuse'", async () => {
    const directory = join(temp.dir, "sub");
    const link = join(temp.dir, "link.html");
    await mkdir(directory);
    await writeFile(join(temp.dir, "earlier.html"), MARK);
    await symlink("earlier.html", link);
    const seen: { head: string; whole: boolean }[] = [];
    for (const path of [directory, link]) {
      await expect(refuseToReplaceOtherFile(path, check({ notAFile: "replace" }, seen))).resolves.toBeUndefined();
      await expect(refuseToReplaceOtherFile(path, check({ notAFile: "refuse" }, seen))).rejects.toThrow("exists and is not an output of ours");
    }
    // None of them is read: a symlink is not followed to the earlier output it points to.
    expect(seen).toEqual([]);
  });

  it("an empty file holds nothing to lose and is replaced under either notAFile choice, unread", async () => {
    const empty = join(temp.dir, "empty.json");
    await writeFile(empty, "");
    const seen: { head: string; whole: boolean }[] = [];
    await expect(refuseToReplaceOtherFile(empty, check({ notAFile: "replace" }, seen))).resolves.toBeUndefined();
    await expect(refuseToReplaceOtherFile(empty, check({ notAFile: "refuse" }, seen))).resolves.toBeUndefined();
    expect(seen).toEqual([]);
  });

  it("a file that cannot be read is left to the write with unreadable 'replace', and refused with 'refuse'", async () => {
    const locked = join(temp.dir, "locked.html");
    await writeFile(locked, MARK);
    const seen: { head: string; whole: boolean }[] = [];
    await expect(refuseToReplaceOtherFile(locked, check({ unreadable: "replace" }, seen), unreadableRead)).resolves.toBeUndefined();
    await expect(refuseToReplaceOtherFile(locked, check({ unreadable: "refuse" }, seen), unreadableRead)).rejects.toThrow(
      `--out: ${locked} exists and cannot be read, so it cannot be told to be an output of ours; it is never replaced`,
    );
    expect(seen).toEqual([]);
  });

  it("with wholeOnly, a file longer than headBytes is refused unread, and one within it is read whole", async () => {
    const large = join(temp.dir, "large.html");
    const small = join(temp.dir, "small.html");
    await writeFile(large, `${MARK}${"x".repeat(64)}`);
    await writeFile(small, MARK);
    const seen: { head: string; whole: boolean }[] = [];
    const headBytes = MARK.length + 8;
    await expect(refuseToReplaceOtherFile(large, check({ wholeOnly: true, headBytes }, seen))).rejects.toThrow("exists and is not an output of ours");
    expect(seen).toEqual([]);
    await expect(refuseToReplaceOtherFile(small, check({ wholeOnly: true, headBytes }, seen))).resolves.toBeUndefined();
    expect(seen).toEqual([{ head: MARK, whole: true }]);
  });
});
