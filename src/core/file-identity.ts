// Which file a path names, so that two paths of one run that are one file are caught whatever
// the spelling: "m.json" and "./m.json", a directory reached through a symlink, a file that is
// a symlink (even a dangling one, to a file the run has yet to create), or a hard link. A run
// whose files share a file would destroy one of them (a report renamed over the verdict cache),
// so every command that takes several files compares them here before anything is read or written.
// The identity of a path is the real path it resolves to (every symlink followed, the missing
// tail kept as given under the real path of its nearest existing ancestor) and, when the file
// exists, its (device, inode) pair: two paths are one file when either matches.
import { fstatSync, type Stats } from "node:fs";
import { lstat, readlink, realpath, stat } from "node:fs/promises";
import { basename, dirname, resolve } from "node:path";
import { UsageError } from "./errors.js";

/** What a path names on disk: its fully resolved path and, for an existing file, (device, inode). */
export interface FileIdentity {
  /** Absolute, every existing symlink followed (a dangling one to its target). */
  readonly path: string;
  /** `dev:ino` of the file the path reaches, or null when nothing exists there yet. */
  readonly inode: string | null;
}

/** Symlink hops followed before giving up on a chain (the kernel's own limit is 40). */
const MAX_LINK_HOPS = 40;

/**
 * The real path of the deepest existing ancestor of `path` plus the rest of the path as given,
 * so "m.json" and "./m.json" (or a symlinked directory) compare equal before the file exists.
 * The last component itself is not followed when it is a dangling symlink: this is where a file
 * created or renamed at `path` lands (publication replaces a symlink, never writes through it).
 */
export async function canonicalPath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    // basename, not a slice after the parent's length: the parent "/" has no separator to skip.
    return resolve(await canonicalPath(parent), basename(absolute));
  }
}

/** canonicalPath, but a dangling symlink at the end is followed to the file it would create. */
async function resolvedPath(path: string, hops: number): Promise<string> {
  const landing = await canonicalPath(path);
  if (hops >= MAX_LINK_HOPS) return landing;
  const link = await readlink(landing).catch(() => null);
  return link === null ? landing : resolvedPath(resolve(dirname(landing), link), hops + 1);
}

/** The identity of `path` (resolved against `cwd`); never throws for a missing or unreadable file. */
export async function fileIdentity(path: string, cwd: string = process.cwd()): Promise<FileIdentity> {
  const resolved = await resolvedPath(resolve(cwd, path), 0);
  // stat follows symlinks: a symlink and its target, or two hard links, give one (dev, ino).
  const info = await stat(resolved, { bigint: true }).catch(() => lstat(resolved, { bigint: true }).catch(() => null));
  return { path: resolved, inode: info === null ? null : inodeKey(info) };
}

/** The (device, inode) pair as FileIdentity keeps it. */
function inodeKey(info: { readonly dev: bigint; readonly ino: bigint }): string {
  return `${info.dev}:${info.ino}`;
}

/**
 * The (device, inode) of the regular file an open descriptor reads (`process.stdin` redirected
 * from a file), as FileIdentity keeps it; null for a pipe, a socket or a descriptor that fails.
 */
export function descriptorInode(fd: number): string | null {
  try {
    const info = fstatSync(fd, { bigint: true });
    return info.isFile() ? inodeKey(info) : null;
  } catch {
    return null;
  }
}

/** True when two identities are one file: the same resolved path, or the same (device, inode). */
export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.path === b.path || (a.inode !== null && a.inode === b.inode);
}

/** A file of a run: what names it (a flag, or "the input") and its path (absent: none). */
export type RunFile = readonly [label: string, path: string | false | null | undefined];

/**
 * Throws UsageError when a side file is the same file as one of `files` or an earlier side
 * file, naming both and the paths as given (JSON-quoted: they are the user's own text). `files`
 * are not compared with each other: their own command keeps them apart (publication does, with
 * this same identity). Paths are resolved against `cwd`; absent and empty paths are skipped.
 */
export async function refuseSharedFiles(cwd: string, files: readonly RunFile[], sides: readonly RunFile[]): Promise<void> {
  const taken: Array<{ label: string; path: string; identity: FileIdentity }> = [];
  const claim = async ([label, path]: RunFile, side: boolean): Promise<void> => {
    if (typeof path !== "string" || path === "") return;
    const identity = await fileIdentity(path, cwd);
    const other = side ? taken.find((earlier) => sameFile(earlier.identity, identity)) : undefined;
    if (other !== undefined) {
      const paths = path === other.path ? JSON.stringify(path) : `${JSON.stringify(path)} and ${JSON.stringify(other.path)}`;
      throw new UsageError(
        `${label} names the same file as ${other.label}: ${paths} ${path === other.path ? "is" : "are"} one file; give each file of a run its own path`,
      );
    }
    taken.push({ label, path, identity });
  };
  for (const file of files) await claim(file, false);
  for (const file of sides) await claim(file, true);
}

/**
 * What `path` is when it exists and is a special file ("a named pipe", "a character device",
 * …), or a symlink to one ("a symlink to a named pipe"), else null. A whole-file write renames
 * over its target and `--overwrite` unlinks it, so either would put a regular file where
 * `/dev/null` or a named pipe was (as root, for every process of the host). A symlink is replaced
 * itself, never what it points to, so one to a regular file (or to nothing) is replaced like a
 * file; but one to a special file is refused too: `--junit /dev/stdout` asks for the report on
 * the terminal or a pipe (`/dev/stdout` is a symlink to `/proc/self/fd/1`), and replacing the
 * link would give the report to nobody and take `/dev/stdout` from every process. A rename over a
 * directory fails (callers that can name a directory better do so first). `follow`: for a
 * writer that opens the path instead, what a symlink there leads to (it would write into that).
 */
export async function specialFileKind(path: string, options: { readonly follow?: boolean } = {}): Promise<string | null> {
  const info = await (options.follow === true ? stat(path) : lstat(path)).catch(() => null);
  if (info === null || info.isFile() || info.isDirectory()) return null;
  if (!info.isSymbolicLink()) return specialKind(info);
  const target = await stat(path).catch(() => null);
  return target === null || target.isFile() || target.isDirectory() ? null : `a symlink to ${specialKind(target)}`;
}

/** The words for a file that is neither a regular file, a directory nor a symlink. */
function specialKind(info: Stats): string {
  if (info.isFIFO()) return "a named pipe";
  if (info.isCharacterDevice()) return "a character device";
  if (info.isBlockDevice()) return "a block device";
  if (info.isSocket()) return "a socket";
  return "not a regular file";
}
