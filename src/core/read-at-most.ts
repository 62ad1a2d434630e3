// The read of a small file that must not be trusted to stay the size `stat` said: at most
// `max` + 1 bytes, so a caller refuses a file that grew past its bound by the bytes actually read
// (one byte over is enough to know), never holding more than that.
import { type FileHandle, open } from "node:fs/promises";
import type { Stats } from "node:fs";
import { fileReason } from "./strict-json-stream.js";

/** A small file, read: its bytes (at most `max` + 1), or the problem `refuse` named, or the reason (fileReason) it could not be read. */
export type SmallFileRead = { readonly bytes: Buffer } | { readonly problem: string } | { readonly unreadable: string; readonly code: string | null };

/** Opens `path` with `flags`, asks `refuse` about its stats (a problem, or null to read it), then reads it; never throws. */
export async function readSmallFile(path: string, max: number, refuse: (stats: Stats) => string | null, flags: string | number = "r"): Promise<SmallFileRead> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, flags);
    const stats = await handle.stat();
    const problem = refuse(stats);
    if (problem !== null) return { problem };
    // Sized by stat (a large bound must not cost its size for a small file), grown only if the
    // file grows while it is read, never past `max` + 1.
    let buffer = Buffer.alloc(Math.min(stats.size, max) + 1);
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled < buffer.byteLength) continue;
      if (buffer.byteLength === max + 1) break;
      const grown = Buffer.alloc(Math.min(buffer.byteLength * 2, max + 1));
      buffer.copy(grown, 0, 0, filled);
      buffer = grown;
    }
    return { bytes: buffer.subarray(0, filled) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return { unreadable: fileReason(error), code: typeof code === "string" ? code : null };
  } finally {
    await handle?.close();
  }
}
