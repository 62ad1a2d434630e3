// The read of a small file that must not be trusted to stay the size `stat` said: at most
// `max` + 1 bytes, so a caller refuses a file that grew past its bound by the bytes actually read
// (one byte over is enough to know), never holding more than that.
import { type FileHandle, open } from "node:fs/promises";
import type { Stats } from "node:fs";
import { fileReason } from "./strict-json-stream.js";

/** A small file, read: its bytes (at most `max` + 1), or the problem `refuse` named, or the reason (fileReason) it could not be read. */
export type SmallFileRead = { readonly bytes: Buffer } | { readonly problem: string } | { readonly unreadable: string };

/** Opens `path` with `flags`, asks `refuse` about its stats (a problem, or null to read it), then reads it; never throws. */
export async function readSmallFile(path: string, max: number, refuse: (stats: Stats) => string | null, flags: string | number = "r"): Promise<SmallFileRead> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(path, flags);
    const problem = refuse(await handle.stat());
    if (problem !== null) return { problem };
    const buffer = Buffer.alloc(max + 1);
    let filled = 0;
    while (filled < buffer.byteLength) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled) };
  } catch (error) {
    return { unreadable: fileReason(error) };
  } finally {
    await handle?.close();
  }
}
