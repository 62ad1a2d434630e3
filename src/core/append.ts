// Appending to a file a user named (the endpoint log, the GitHub job summary, the audit log):
// the file is opened with O_NOFOLLOW, so a symlink put at its path after the run checked its
// files (core/file-identity.ts) cannot redirect the append into another file of the run, a
// published manifest or an input. A symlink there fails the open with ELOOP instead.
import { appendFileSync, closeSync, constants, openSync } from "node:fs";
import { appendFile } from "node:fs/promises";

/** Write-only, append, create if missing, and never through a symlink at the last component. */
const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Opens `path` for appending (created owner-only if missing, never through a symlink); returns the fd. */
export function openAppendNoFollowSync(path: string): number {
  return openSync(path, APPEND_NO_FOLLOW, 0o600);
}

/** Appends `text` (UTF-8) to `path` (created owner-only if missing), never through a symlink; throws the system error. */
export function appendNoFollowSync(path: string, text: string): void {
  const fd = openAppendNoFollowSync(path);
  try {
    appendFileSync(fd, text, "utf8");
  } finally {
    closeSync(fd);
  }
}

/** Appends `text` (UTF-8) to `path`, never through a symlink; throws the system error (ELOOP for a symlink). */
export async function appendNoFollow(path: string, text: string): Promise<void> {
  await appendFile(path, text, { encoding: "utf8", mode: 0o666, flag: APPEND_NO_FOLLOW });
}
