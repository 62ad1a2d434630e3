// Byte sources for the reader: a file, or a Node stream (stdin). Never decoded text: a stream with
// an encoding set is a caller error, since decoding would hide invalid UTF-8 the reader must refuse.

import { createReadStream } from "node:fs";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";

export const READ_CHUNK_BYTES = 65536;

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
