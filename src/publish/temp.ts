// Publication's temp files: `.<target name>.<random>.tmp` beside the target (a hard link never
// crosses a file system), created exclusively 0600, written, fsynced and closed before a link.
// The path goes to `register` as soon as the file exists, so rollback removes it whatever fails
// next; only the instant between the kernel creating it and `open` returning is uncovered.
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import type { FramedDocument } from "./framed-document.js";
import type { FileIdentity, PublishFs } from "./fs.js";
import { errorCode } from "../core/errors.js";

export interface TempFile {
  readonly path: string;
  /** Recorded after fsync; a published target is "ours" only while it still has this identity. */
  readonly identity: FileIdentity;
}

export function randomName(): string {
  return randomBytes(8).toString("hex");
}

/**
 * Creates the temp for `target` and writes `content` into it: bytes in memory, or a framed
 * document copied from its spool (which checks its digest as it goes).
 */
export async function writeTemp(
  fs: PublishFs,
  target: string,
  content: Uint8Array | FramedDocument,
  register: (path: string) => void,
  mode: number = 0o600,
): Promise<TempFile> {
  const path = join(dirname(target), `.${basename(target)}.${randomName()}.tmp`);
  const handle = await fs.open(path, "create", mode);
  register(path);
  try {
    if (content instanceof Uint8Array) await handle.write(content);
    else await content.writeTo((chunk) => handle.write(chunk));
    await handle.sync();
  } catch (error) {
    // The write error is the one worth reporting; a close failure after it adds nothing.
    await handle.close().catch(() => undefined);
    throw error;
  }
  // A failed close can mean lost data on some file systems: it fails the publication too.
  await handle.close();
  const identity = await fs.stat(path);
  const expected = content instanceof Uint8Array ? content.byteLength : content.size;
  if (identity.size !== BigInt(expected)) {
    throw Object.assign(new Error(`temp file ${path} has ${identity.size} bytes, expected ${expected}`), { code: "EIO" });
  }
  return { path, identity };
}

/** fsync a directory so the links and unlinks in it survive a power loss; best effort. */
export async function syncDirectory(fs: PublishFs, directory: string): Promise<void> {
  try {
    const handle = await fs.open(directory, "directory");
    try {
      await handle.sync();
    } finally {
      await handle.close().catch(() => undefined);
    }
  } catch {
    // Some platforms and file systems refuse to open or fsync a directory (EISDIR, EINVAL,
    // EPERM); durability of the entry is then up to the file system.
  }
}

/** unlink that treats "already gone" as done and retries once (a transient EIO, EAGAIN). */
export async function unlinkQuietly(fs: PublishFs, path: string): Promise<string | null> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.unlink(path);
      return null;
    } catch (error) {
      const code = errorCode(error);
      if (code === "ENOENT") return null;
      if (attempt >= 1) return code ?? "unknown error";
    }
  }
}
