// Appending to a file a user named (the endpoint log, the GitHub job summary, the audit log):
// the file is opened with O_NOFOLLOW, so a symlink put at its path after the run checked its
// files (core/file-identity.ts) cannot redirect the append into another file of the run, a
// published manifest or an input. A symlink there fails the open with ELOOP instead.
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";

/** Write-only, append, create if missing, and never through a symlink at the last component. */
const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Opens `path` for appending (created with `mode` if missing, never through a symlink); returns the fd. */
export function openAppendNoFollowSync(path: string, mode = 0o600): number {
  return openSync(path, APPEND_NO_FOLLOW, mode);
}

/** Appends `text` (UTF-8) to `path` (created with `mode` if missing), never through a symlink; throws the system error. */
export function appendNoFollowSync(path: string, text: string, mode = 0o600): void {
  const fd = openAppendNoFollowSync(path, mode);
  try {
    const bytes = Buffer.from(text, "utf8");
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } finally {
    closeSync(fd);
  }
}

/** Appends `text` (UTF-8) to `path` in one write, never through a symlink; throws the system error (ELOOP for a symlink). */
export async function appendNoFollow(path: string, text: string, mode = 0o666): Promise<void> {
  const handle = await open(path, APPEND_NO_FOLLOW, mode);
  try {
    await handle.appendFile(text, "utf8");
  } finally {
    await handle.close();
  }
}
