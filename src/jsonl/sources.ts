// Byte sources for the reader: a file, a Node stream (stdin), or bytes in memory, in chunks of at
// most READ_CHUNK_BYTES where the source controls the size. Never decoded text: a stream with an
// encoding set is a caller error, since decoding would hide invalid UTF-8 the reader must refuse.

import { createReadStream } from "node:fs";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";

export const READ_CHUNK_BYTES = 65536;

/** Chunks of an in-memory input. A string is encoded as UTF-8 (a lone surrogate becomes U+FFFD). */
export async function* fromBytes(input: Uint8Array | string, chunkBytes: number = READ_CHUNK_BYTES): AsyncGenerator<Uint8Array> {
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new UsageError("chunk size must be a positive integer");
  const bytes = typeof input === "string" ? new TextEncoder().encode(input) : input;
  for (let start = 0; start < bytes.byteLength; start += chunkBytes) {
    yield bytes.subarray(start, Math.min(start + chunkBytes, bytes.byteLength));
  }
}

/** Chunks of a readable byte stream such as `process.stdin`. */
export async function* fromNodeStream(stream: NodeJS.ReadableStream): AsyncGenerator<Uint8Array> {
  for await (const chunk of stream) {
    if (typeof chunk === "string") {
      throw new UsageError("the input stream must yield bytes; do not set an encoding on it");
    }
    yield chunk;
  }
}

/** Chunks of a file, read READ_CHUNK_BYTES at a time. Read errors become LittleCanaryError("io"). */
export async function* fromFile(path: string): AsyncGenerator<Uint8Array> {
  const stream = createReadStream(path, { highWaterMark: READ_CHUNK_BYTES });
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (error) {
    const reason = typeof (error as { code?: unknown })?.code === "string" ? ` (${(error as { code: string }).code})` : "";
    throw new LittleCanaryError("io", `could not read input file ${displayText(path)}${reason}`, { cause: error });
  } finally {
    stream.destroy();
  }
}
