// The one atomic whole-file write: the publication's temp-file step (an exclusive temp file in
// the target's own directory, every byte written, fsynced, closed and its size checked), then a
// rename over the target and an fsync of the directory. A reader sees the old file or the whole
// new one, never half of it, and a crash leaves at most a `.<name>.<random>.tmp` sibling.
// Publication itself links instead of renaming (it must never replace a file); everything else
// that rewrites a whole file (eval reports, demo captures) comes through here.
import { lstat } from "node:fs/promises";
import { dirname } from "node:path";
import { displayText } from "../core/display-text.js";
import { specialFileKind } from "../core/file-identity.js";
import type { FramedDocument } from "./framed-document.js";
import { nodePublishFs, type PublishFs } from "./fs.js";
import { PublishError } from "./targets.js";
import { syncDirectory, unlinkQuietly, writeTemp } from "./temp.js";

export interface AtomicWriteOptions {
  /** The file system (default the real one); tests and benches wrap it (bench/_fs-hooks.ts). */
  readonly fs?: PublishFs;
}

/**
 * Replaces `path` with `data` (a string as UTF-8; a framed document copied, its digest checked)
 * atomically and durably; on failure the temp is removed, the target unchanged, the error rethrown.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array | FramedDocument, options: AtomicWriteOptions = {}): Promise<void> {
  await (await stageFileAtomic(path, data, options)).commit();
}

/** A whole file written beside its target and not yet in its place (stageFileAtomic). */
export interface StagedFile {
  /** Renames it over the target and syncs the directory; on failure the temp is removed and the error rethrown. */
  commit(): Promise<void>;
  /** Removes it, leaving the target as it was (never throws; nothing after a commit). */
  discard(): Promise<void>;
}

/**
 * The first half of writeFileAtomic: every byte of `data` in a synced temp file beside `path`,
 * the target untouched until `commit`. A caller replacing several files (a run's CI reports)
 * stages them all first, so a write that fails (a full disk) leaves every target as it was.
 */
export async function stageFileAtomic(path: string, data: string | Uint8Array | FramedDocument, options: AtomicWriteOptions = {}): Promise<StagedFile> {
  const fs = options.fs ?? nodePublishFs;
  // Callers name their flag first; this is the last guard of every whole-file write.
  const special = await specialFileKind(path);
  if (special !== null) throw new PublishError(`${displayText(path)} is ${special}, not a regular file: refusing to replace it`);
  // The rename over a directory would fail: found now, so a caller staging several files commits none.
  if ((await lstat(path).catch(() => null))?.isDirectory() === true) throw Object.assign(new Error(`${path} is a directory`), { code: "EISDIR" });
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let temporary: string | null = null;
  try {
    // Mode 0o666 before the umask, as for any new file (publication's temps are 0600).
    await writeTemp(fs, path, bytes, (p) => (temporary = p), 0o666);
  } catch (error) {
    if (temporary !== null) await unlinkQuietly(fs, temporary);
    throw error;
  }
  const discard = async (): Promise<void> => {
    if (temporary !== null) await unlinkQuietly(fs, temporary);
    temporary = null;
  };
  return {
    async commit() {
      if (temporary === null) throw new Error("a staged file is committed once, and not after it was discarded");
      try {
        await fs.rename(temporary, path);
        temporary = null;
      } catch (error) {
        await discard();
        throw error;
      }
      await syncDirectory(fs, dirname(path));
    },
    discard,
  };
}
