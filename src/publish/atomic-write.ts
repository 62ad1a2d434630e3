// The one atomic whole-file write: the publication's temp-file step (an exclusive temp file in
// the target's own directory, every byte written, fsynced, closed and its size checked), then a
// rename over the target and an fsync of the directory. A reader sees the old file or the whole
// new one, never half of it, and a crash leaves at most a `.<name>.<random>.tmp` sibling.
// Publication itself links instead of renaming (it must never replace a file); everything else
// that rewrites a whole file (eval reports, demo captures) comes through here.
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
  const fs = options.fs ?? nodePublishFs;
  // Callers name their flag first; this is the last guard of every whole-file write.
  const special = await specialFileKind(path);
  if (special !== null) throw new PublishError(`${displayText(path)} is ${special}, not a regular file: refusing to replace it`);
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let temporary: string | null = null;
  try {
    // Mode 0o666 before the umask, as for any new file (publication's temps are 0600).
    const temp = await writeTemp(fs, path, bytes, (p) => (temporary = p), 0o666);
    await fs.rename(temp.path, path);
    temporary = null;
  } catch (error) {
    if (temporary !== null) await unlinkQuietly(fs, temporary);
    throw error;
  }
  await syncDirectory(fs, dirname(path));
}
