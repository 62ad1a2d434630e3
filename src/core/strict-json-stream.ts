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
import { Buffer, isUtf8 } from "node:buffer";
import { StrictJsonParser, StrictStreamError, type GrammarOptions, type StrictStreamEvent } from "./parse-line.js";
import { startsWithByteOrderMark } from "./strict-document.js";

export { StrictStreamError, type StrictStreamEvent } from "./parse-line.js";

/** The document without its streamed arrays. */
export interface StrictStreamResult {
  /** The root value; when arrays were streamed it is the root object without those keys. */
  readonly value: unknown;
  /** Keys whose arrays were streamed (in document order). */
  readonly streamed: readonly string[];
  /** Some string (key or value) holds an escaped lone surrogate. */
  readonly loneSurrogate: boolean;
  /** Bytes read. */
  readonly bytes: number;
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
  private failure: StrictStreamError | null = null;
  private utf8Failed = false;
  /** The start of a UTF-8 sequence that the previous chunk ended in. */
  private utf8Carry: Uint8Array = EMPTY;
  /** The first bytes (up to three): a byte order mark is refused by its own code. */
  private head: Uint8Array = EMPTY;
  private bytesRead = 0;

  constructor(options: GrammarOptions = {}) {
    this.parser = new StrictJsonParser(options);
  }

  /** The first problem found so far, if any (the document will be refused; `end` says for which). */
  get failed(): StrictStreamError | null {
    return this.failure;
  }

  /** Feeds the next chunk; returns what it completed. Never throws. */
  write(chunk: Uint8Array): StrictStreamEvent[] {
    this.bytesRead += chunk.byteLength;
    if (this.head.byteLength < 3) this.head = Buffer.concat([this.head, chunk.subarray(0, 3 - this.head.byteLength)]);
    return this.process(chunk, false);
  }

  /** Ends the document: its rest, or throws StrictStreamError with the reader's problem. */
  end(): StrictStreamResult {
    // The grammar refuses a byte order mark as malformed JSON at its first byte.
    if (startsWithByteOrderMark(this.head)) throw new StrictStreamError("byte_order_mark", "starts with a byte order mark");
    if (this.utf8Failed || this.utf8Carry.byteLength > 0) throw new StrictStreamError("invalid_utf8", "invalid UTF-8");
    if (this.failure === null) this.process(EMPTY, true);
    if (this.failure !== null) throw this.failure;
    return { value: this.parser.value, streamed: this.parser.streamed, loneSurrogate: this.parser.loneSurrogate, bytes: this.bytesRead };
  }

  private process(chunk: Uint8Array, final: boolean): StrictStreamEvent[] {
    if (this.utf8Failed) return [];
    if (!this.checkUtf8(chunk)) {
      this.utf8Failed = true;
      this.failure ??= new StrictStreamError("invalid_utf8", "invalid UTF-8");
      return [];
    }
    if (this.failure !== null) return [];
    try {
      this.parser.feed(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength), final);
    } catch (error) {
      if (!(error instanceof StrictStreamError)) throw error;
      this.failure = error;
      // The events of a refused chunk are not worth handing out.
      this.parser.takeEvents();
      return [];
    }
    return this.parser.takeEvents();
  }

  /** Whether the chunk continues strict UTF-8 (a sequence it ends in is carried to the next). */
  private checkUtf8(chunk: Uint8Array): boolean {
    const bytes = this.utf8Carry.byteLength > 0 ? Buffer.concat([this.utf8Carry, chunk]) : chunk;
    const open = unfinishedSequence(bytes);
    // A copy: the caller may reuse its chunk's memory (and Buffer#slice would not copy).
    this.utf8Carry = open === 0 ? EMPTY : Uint8Array.from(bytes.subarray(bytes.byteLength - open));
    return isUtf8(bytes.subarray(0, bytes.byteLength - open));
  }
}
