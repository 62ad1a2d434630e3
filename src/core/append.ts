// Appending to a file a user named (the endpoint log, the GitHub job summary, the audit log):
// the file is opened with O_NOFOLLOW, so a symlink put at its path after the run checked its
// files (core/file-identity.ts) cannot redirect the append into another file of the run, a
// published manifest or an input. A symlink there fails the open with ELOOP instead.
//
// A FIFO named there would hold the open until some process reads it (a run that never starts,
// deaf to Ctrl-C while its thread waits in open): appendTargetProblem refuses one before the run.
// The appends themselves block as any write does (a log read slowly through a pipe loses nothing).
import { appendFileSync, closeSync, constants, lstatSync, openSync, statSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dirname } from "node:path";

/** Write-only, append, create if missing, and never through a symlink at the last component. */
const APPEND_NO_FOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * Why `path` cannot take the appends of this module, in words that follow the path ("is a
 * directory"), or null when it can: a regular file, a character device (`/dev/null`), or no file
 * yet in an existing directory. A FIFO, a socket, a directory or a symlink is refused.
 */
export function appendTargetProblem(path: string): string | null {
  let stats: ReturnType<typeof lstatSync>;
  try {
    stats = lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOTDIR") return "is in a path whose parent is not a directory";
    if (code !== "ENOENT") return `cannot be examined (${code ?? "error"})`;
    try {
      return statSync(dirname(path)).isDirectory() ? null : "is in a path whose parent is not a directory";
    } catch {
      return "is in a directory that does not exist";
    }
  }
  if (stats.isFile() || stats.isCharacterDevice()) return null;
  if (stats.isSymbolicLink()) return "is a symbolic link (never followed)";
  if (stats.isDirectory()) return "is a directory";
  return stats.isFIFO() || stats.isSocket() ? "is not a regular file: a FIFO or socket would be waited on" : "is not a regular file";
}

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
