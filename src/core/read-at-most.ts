// The read of a small file that must not be trusted to stay the size `stat` said: at most
// `max` + 1 bytes from an open handle, so a caller refuses a file that grew past its bound by the
// bytes actually read (one byte over is enough to know), never holding more than that.
import type { FileHandle } from "node:fs/promises";

/** The file's bytes from its current position, up to `max` + 1 of them (more than `max`: too large). */
export async function readAtMost(handle: FileHandle, max: number): Promise<Buffer> {
  const buffer = Buffer.alloc(max + 1);
  let filled = 0;
  while (filled < buffer.byteLength) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.byteLength - filled, null);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
