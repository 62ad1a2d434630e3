// Strict streaming JSON reader: the one strict grammar (parse-line.ts) fed a document chunk by
// chunk, so a document far larger than memory can be walked (each element of a streamed array is
// handed over as an event and dropped; the small rest is returned at the end). What it adds is
// what only a chunked document needs:
// - A byte order mark is refused by its own code (the first three bytes are kept to compare), as
//   readStrictDocument does for a whole document.
// - Strict UTF-8 across chunks: an unfinished multi-byte sequence at a chunk's end is carried to
//   the next; a truncated one at the end is refused.
// - The problem reported is the whole-document reader's: a byte order mark first, then invalid
//   UTF-8 anywhere (after a JSON problem the rest is still checked for UTF-8), then the first
//   JSON problem in document order; `end` throws it as a StrictStreamError.
// A file is read through it chunk by chunk, its exact bytes hashed on the fly. A pull source: two
// documents can be walked in lockstep, holding only one chunk plus the element being assembled of each.
import { Buffer, isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { constants, readSync } from "node:fs";
import { open } from "node:fs/promises";
import { errnoCode } from "./errors.js";
import { StrictJsonParser, StrictStreamError, type GrammarOptions, type StrictStreamEvent } from "./parse-line.js";
import { startsWithByteOrderMark } from "./strict-document.js";

/** The last event of a file: the document without its streamed arrays, and the SHA-256 of its bytes. */
export interface StrictFileEnd {
  readonly type: "end";
  /** The root value; when arrays were streamed it is the root object without those keys. */
  readonly value: unknown;
  /** Keys whose arrays were streamed (in document order). */
  readonly streamed: readonly string[];
  /** Some string (key or value) holds an escaped lone surrogate. */
  readonly loneSurrogate: boolean;
  /** Bytes read. */
  readonly bytes: number;
  /** SHA-256 of the bytes read; null when the caller did not ask for it (readCanonicalJsonFile's `hash: false`). */
  readonly sha256: string | null;
}

const EMPTY = Buffer.alloc(0);

/** How many bytes at the end of `bytes` start a UTF-8 sequence that the next chunk may finish. */
function unfinishedSequence(bytes: Uint8Array): number {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const unit = bytes[bytes.length - back] as number;
    if (unit < 0x80) return 0;
    if (unit >= 0xc0) {
      // A lead byte: complete when the bytes after it are as many as it announces (an invalid
      // lead byte is left to the UTF-8 check).
      const needed = unit >= 0xf8 ? 1 : unit >= 0xf0 ? 4 : unit >= 0xe0 ? 3 : 2;
      return needed > back ? back : 0;
    }
  }
  return 0;
}

/** A push reader: `write` each chunk of bytes (never throws: the first problem is kept, see `failed`), then `end`. */
export class StrictJsonStream {
  private readonly parser: StrictJsonParser;
  /** The first problem found so far, if any (the document will be refused; `end` says for which). */
  failed: StrictStreamError | null = null;
  private utf8Failed = false;
  /** The start of a UTF-8 sequence that the previous chunk ended in. */
  private utf8Carry: Uint8Array = EMPTY;
  /** The first bytes (up to three): a byte order mark is refused by its own code. */
  private head: Uint8Array = EMPTY;
  private bytesRead = 0;

  constructor(options: GrammarOptions = {}) {
    this.parser = new StrictJsonParser(options);
  }

  /** Feeds the next chunk; returns what it completed. Never throws. */
  write(chunk: Uint8Array): StrictStreamEvent[] {
    this.bytesRead += chunk.byteLength;
    if (this.head.byteLength < 3) this.head = Buffer.concat([this.head, chunk.subarray(0, 3 - this.head.byteLength)]);
    return this.process(chunk, false);
  }

  /** Ends the document: its rest, or throws StrictStreamError with the reader's problem. */
  end(): Omit<StrictFileEnd, "type" | "sha256"> {
    // The grammar refuses a byte order mark as malformed JSON at its first byte.
    if (startsWithByteOrderMark(this.head)) throw new StrictStreamError("byte_order_mark", "starts with a byte order mark");
    if (this.utf8Failed || this.utf8Carry.byteLength > 0) throw new StrictStreamError("invalid_utf8", "invalid UTF-8");
    if (this.failed === null) this.process(EMPTY, true);
    if (this.failed !== null) throw this.failed;
    return { value: this.parser.value, streamed: this.parser.streamed, loneSurrogate: this.parser.loneSurrogate, bytes: this.bytesRead };
  }

  private process(chunk: Uint8Array, final: boolean): StrictStreamEvent[] {
    if (this.utf8Failed) return [];
    // Strict UTF-8 across chunks: a sequence the chunk ends in is carried to the next (as a copy:
    // the caller may reuse its chunk's memory, and Buffer#slice would not copy).
    const bytes = this.utf8Carry.byteLength > 0 ? Buffer.concat([this.utf8Carry, chunk]) : chunk;
    const unfinished = unfinishedSequence(bytes);
    this.utf8Carry = unfinished === 0 ? EMPTY : Uint8Array.from(bytes.subarray(bytes.byteLength - unfinished));
    if (!isUtf8(bytes.subarray(0, bytes.byteLength - unfinished))) {
      this.utf8Failed = true;
      this.failed ??= new StrictStreamError("invalid_utf8", "invalid UTF-8");
      return [];
    }
    if (this.failed !== null) return [];
    try {
      this.parser.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), final);
    } catch (error) {
      if (!(error instanceof StrictStreamError)) throw error;
      this.failed = error;
    }
    // The events of a refused chunk are not worth handing out.
    const events = this.parser.takeEvents();
    return this.failed === null ? events : [];
  }
}

/** Why a file could not be opened or read (not a format problem). */
export class StrictFileError extends Error {
  constructor(
    /** "not_found", "not_a_file", "changed" (written to while read), or a short errno code such as "EACCES"; never a path. */
    readonly reason: string,
  ) {
    super(`cannot read file (${reason})`);
    this.name = "StrictFileError";
  }
}

/** A StrictFileError's reason for a system error: "not_found", its errno code, or "unreadable". */
export function fileReason(error: unknown): string {
  const code = errnoCode(error);
  if (code === "ENOENT") return "not_found";
  return code ?? "unreadable";
}

/** How a document file is read: the size of one read, and who hears of each read's bytes (progress). */
export interface FileReadOptions {
  readonly chunkBytes?: number;
  readonly onChunk?: (bytes: number) => void;
}

/**
 * Walks a document file: yields the reader's events as they complete, then one `end` event.
 * Throws StrictFileError when the file cannot be opened or read, and StrictStreamError (with
 * the strict reader's code) when its bytes are not a strict JSON document; the error is thrown
 * only after the whole file was read, so the problem reported is the strict reader's.
 */
export async function* readStrictJsonFile(
  path: string,
  options: GrammarOptions & FileReadOptions = {},
): AsyncGenerator<StrictStreamEvent | StrictFileEnd, void, void> {
  const reader = new StrictJsonStream(options);
  const hash = createHash("sha256");
  for await (const chunk of readFileChunks(path, options.chunkBytes)) {
    hash.update(chunk);
    options.onChunk?.(chunk.byteLength);
    const events = reader.write(chunk);
    // After a problem the rest is only scanned; its events are not worth handing out.
    if (reader.failed === null) for (const event of events) yield event;
  }
  yield { type: "end", ...reader.end(), sha256: hash.digest("hex") };
}

/**
 * The bytes of a regular file, read in chunks of `chunkBytes` (default 64 KiB). Each chunk is a
 * view of one reused buffer, valid until the next is asked for. Throws StrictFileError when the
 * file cannot be opened or read, or is not a regular file, and ("changed") when it does not hold
 * the bytes it held when opened: a file something keeps appending to would otherwise be read for
 * as long as the writer writes, and a file cut short would be judged on half its bytes.
 */
export async function* readFileChunks(path: string, chunkBytes = 1 << 16): AsyncGenerator<Buffer, void, void> {
  const size = Math.max(1, Math.floor(chunkBytes));
  // O_NONBLOCK: opening a named pipe waits for a writer, forever when none comes (or the one there
  // was had left); without the wait it is opened at once and refused below as not a regular file.
  // Reads of a regular file are not affected by the flag.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: unknown) => {
    throw new StrictFileError(fileReason(error));
  });
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new StrictFileError("not_a_file");
    const buffer = Buffer.allocUnsafe(size);
    let total = 0;
    for (;;) {
      // Read here, not on the thread pool: a read of a regular file is a copy from the page
      // cache (for a file not cached, a wait for the disk that holds up this thread's other
      // callbacks for one read), and the trip to a pool thread and back, with both cores busy
      // (verify on two threads), kept each reader waiting for a core. The event loop still gets a
      // turn after every read (timers, signals, other callers, and the collector's tasks, which
      // run there: with a turn every 4 MiB instead, verify's peak RSS rose by about 10 MB).
      const bytesRead = readSync(handle.fd, buffer, 0, size, null);
      total += bytesRead;
      if (total > info.size || (bytesRead === 0 && total !== info.size)) throw new StrictFileError("changed");
      if (bytesRead === 0) break;
      await new Promise<void>((resolve) => setImmediate(resolve));
      yield buffer.subarray(0, bytesRead);
    }
  } catch (error) {
    // Only the file's own operations throw here: a consumer that stops early returns, never throws, into the loop.
    throw error instanceof StrictFileError ? error : new StrictFileError(fileReason(error));
  } finally {
    await handle.close();
  }
}
