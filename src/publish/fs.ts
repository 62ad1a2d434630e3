// The file-system operations publication performs, injectable: `nodePublishFs` in production;
// tests and the crash bench wrap it (bench/_fs-hooks.ts) to fail or slow any one operation (tests run
// as root, so permission bits cannot). Each method is one system call (or one logical write), so
// "fail the Nth operation" is one precise point of the sequence.
import { constants } from "node:fs";
import { type FileHandle, link, lstat, mkdir, open, rename, rmdir, unlink } from "node:fs/promises";

/** What makes a file "ours": the same inode on the same device, still of the size we wrote. */
export interface FileIdentity {
  readonly dev: bigint;
  readonly ino: bigint;
  readonly size: bigint;
}

export interface PublishFileHandle {
  /** Writes every byte (looping over short writes). */
  write(data: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** The file-system operations publication uses, injected so tests can fail any single one. */
export interface PublishFs {
  /** "create" is O_CREAT|O_EXCL|O_WRONLY (never reuses a path); "directory" opens for fsync. */
  open(path: string, purpose: "create" | "directory", mode?: number): Promise<PublishFileHandle>;
  /** Hard link: fails with EEXIST when `target` exists, so it never replaces anything. */
  link(existing: string, target: string): Promise<void>;
  /** Renames a file (used only in rollback). */
  rename(from: string, to: string): Promise<void>;
  /** Removes a file. */
  unlink(path: string): Promise<void>;
  /** lstat with bigint fields: a symlink is identified as itself, never as what it points to. */
  stat(path: string): Promise<FileIdentity>;
  /** Creates a directory with `mode`. */
  mkdir(path: string, mode: number): Promise<void>;
  /** Removes an empty directory. */
  rmdir(path: string): Promise<void>;
}

/** The PublishFs on Node's `fs/promises`. */
export const nodePublishFs: PublishFs = {
  async open(path, purpose, mode = 0o600) {
    const flags = purpose === "create" ? constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY : constants.O_RDONLY | (constants.O_DIRECTORY ?? 0);
    const handle = await open(path, flags, mode);
    return {
      write: (data) => writeAll(handle, data),
      sync: () => handle.sync(),
      close: () => handle.close(),
    };
  },
  link: (existing, target) => link(existing, target),
  rename: (from, to) => rename(from, to),
  unlink: (path) => unlink(path),
  async stat(path) {
    const info = await lstat(path, { bigint: true });
    return { dev: info.dev, ino: info.ino, size: info.size };
  },
  async mkdir(path, mode) {
    await mkdir(path, { mode });
  },
  rmdir: (path) => rmdir(path),
};

export function sameIdentity(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size;
}

/** Writes every byte of `data` at the handle's position, looping over short writes. */
export async function writeAll(handle: FileHandle, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.byteLength) offset += (await handle.write(data, offset, data.byteLength - offset)).bytesWritten;
}
