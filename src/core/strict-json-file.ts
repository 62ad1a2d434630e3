// Reads one JSON document file through the strict streaming reader, chunk by chunk, hashing the
// exact bytes on the fly. A pull source: two documents can be walked in lockstep, holding only
// one chunk plus the element being assembled of each.
import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import type { GrammarOptions } from "./parse-line.js";
import { StrictJsonStream, type StrictStreamEvent, type StrictStreamResult } from "./strict-json-stream.js";

/** Default size of one read, in bytes. */
const DEFAULT_STREAM_CHUNK_BYTES = 1 << 16;

/** Why a file could not be opened or read (not a format problem). */
export class StrictFileError extends Error {
  constructor(
    /** "not_found", "not_a_file", or a short errno code such as "EACCES"; never a path. */
    readonly reason: string,
  ) {
    super(`cannot read file (${reason})`);
    this.name = "StrictFileError";
  }
}

/** The last event of a file: its rest (as StrictStreamResult) and the SHA-256 of its bytes. */
export interface StrictFileEnd extends StrictStreamResult {
  readonly type: "end";
  readonly sha256: string;
}

/** A StrictFileError's reason for a system error: "not_found", its errno code, or "unreadable". */
export function fileReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "not_found";
  return typeof code === "string" && /^E[A-Z]{2,12}$/.test(code) ? code : "unreadable";
}

/**
 * Walks a document file: yields the reader's events as they complete, then one `end` event.
 * Throws StrictFileError when the file cannot be opened or read, and StrictStreamError (with
 * the strict reader's code) when its bytes are not a strict JSON document; the error is thrown
 * only after the whole file was read, so the problem reported is the strict reader's.
 */
export async function* readStrictJsonFile(
  path: string,
  options: GrammarOptions & { readonly chunkBytes?: number } = {},
): AsyncGenerator<StrictStreamEvent | StrictFileEnd, void, void> {
  const reader = new StrictJsonStream(options);
  const hash = createHash("sha256");
  for await (const chunk of readFileChunks(path, options.chunkBytes)) {
    hash.update(chunk);
    const events = reader.write(chunk);
    // After a problem the rest is only scanned; its events are not worth handing out.
    if (reader.failed === null) for (const event of events) yield event;
  }
  const result = reader.end();
  yield { type: "end", ...result, sha256: hash.digest("hex") };
}

/**
 * The bytes of a regular file, read in chunks of `chunkBytes` (default 64 KiB). Each chunk is a
 * view of one reused buffer, valid until the next is asked for. Throws StrictFileError when the
 * file cannot be opened or read, or is not a regular file.
 */
export async function* readFileChunks(path: string, chunkBytes: number = DEFAULT_STREAM_CHUNK_BYTES): AsyncGenerator<Buffer, void, void> {
  const size = Math.max(1, Math.floor(chunkBytes));
  const handle = await open(path, "r").catch((error: unknown) => {
    throw new StrictFileError(fileReason(error));
  });
  try {
    if (!(await handle.stat()).isFile()) throw new StrictFileError("not_a_file");
    const buffer = Buffer.allocUnsafe(size);
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, size, null);
      if (bytesRead === 0) break;
      yield buffer.subarray(0, bytesRead);
    }
  } catch (error) {
    // Only the file's own operations throw here: a consumer that stops early returns, never throws, into the loop.
    throw error instanceof StrictFileError ? error : new StrictFileError(fileReason(error));
  } finally {
    await handle.close();
  }
}
