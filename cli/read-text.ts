// Reads one text argument for `check`: bounded, strict UTF-8, BOM refused.
import type { Readable } from "node:stream";
import { UsageError } from "../src/core/errors.js";

/** Far above the structural limit (4000 code points) so the filter, not the reader, decides. */
export const MAX_CHECK_INPUT_BYTES = 1024 * 1024;

export async function readBoundedText(stream: Readable, maxBytes = MAX_CHECK_INPUT_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : (chunk as Buffer);
    total += buffer.length;
    if (total > maxBytes) throw new UsageError(`input exceeds ${maxBytes} bytes`);
    chunks.push(buffer);
  }
  return decodeStrictUtf8(Buffer.concat(chunks));
}

export function decodeStrictUtf8(bytes: Uint8Array): string {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw new UsageError("input starts with a byte order mark; send plain UTF-8");
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new UsageError("input is not valid UTF-8");
  }
}
