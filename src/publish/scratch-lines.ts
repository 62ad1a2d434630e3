// The lines of a sealed scratch file, read through one reused buffer. A run reads hundreds of
// megabytes of scratch lines; a fresh buffer per chunk is memory outside V8's heap, and V8 answers
// that much of it with a full collection every few dozen milliseconds (a third of a warm run's
// second pass went to them). So a line is handed out as a view that is valid only until the
// next one is asked for: whoever keeps a part of it copies that part (into a string, on the heap).
import type { ScratchFile } from "./scratch-file.js";
import { ScratchFileError } from "./scratch-file.js";
import { displayText } from "../core/display-text.js";

/** One line of a scratch file: `bytes[start, end)`, without its line break; valid until the next line is asked for. */
export interface ScratchLine {
  readonly bytes: Buffer;
  readonly start: number;
  readonly end: number;
}

/** The line-break-terminated lines of `spool`, in order. Throws ScratchFileError, naming `what`, when the file does not end with a line break. */
export async function* scratchLines(spool: ScratchFile, what: string): AsyncGenerator<ScratchLine> {
  // The part of a line that began in an earlier chunk (a copy: that chunk's buffer is reused).
  let carry: Buffer | null = null;
  for await (const chunk of spool.chunks({ reuseBuffer: true })) {
    let start = 0;
    if (carry !== null) {
      const newline = chunk.indexOf(0x0a);
      if (newline === -1) {
        carry = Buffer.concat([carry, chunk]);
        continue;
      }
      const line = Buffer.concat([carry, chunk.subarray(0, newline)]);
      carry = null;
      yield { bytes: line, start: 0, end: line.byteLength };
      start = newline + 1;
    }
    for (let newline = chunk.indexOf(0x0a, start); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      yield { bytes: chunk, start, end: newline };
      start = newline + 1;
    }
    carry = start < chunk.byteLength ? Buffer.from(chunk.subarray(start)) : null;
  }
  if (carry !== null) throw new ScratchFileError(`${what} ${displayText(spool.path)} ends inside a line`);
}
