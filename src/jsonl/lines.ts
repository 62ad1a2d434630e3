// Bounded line splitter over bytes: lines end at `\n` only (a `\r` right before it is dropped, a
// lone `\r` stays); a last line without `\n` is a line; numbers are 1-based. A line over
// `capBytes` (terminator included) is reported as soon as that is certain, so memory holds at
// most one line below the cap plus the chunk. Safe for UTF-8: 0x0A never occurs inside a
// multi-byte sequence, so each line decodes as it would within the whole input.

/** Receives each line (a view valid only during the call); a non-null return stops splitting. */
export type LineSink<S> = (line: Buffer, lineNumber: number) => S | null;

const LF = 0x0a;
const CR = 0x0d;

export class BoundedLineSplitter<S> {
  private pieces: Buffer[] = [];
  private pendingBytes = 0;
  private completedLines = 0;

  /** `firstLineNumber`: the number of the first line (default 1; a shard's lines keep the input's numbers). */
  constructor(
    private readonly capBytes: number,
    private readonly onTooLong: (lineNumber: number) => S,
    firstLineNumber = 1,
  ) {
    this.completedLines = firstLineNumber - 1;
  }

  /** Feeds one chunk; returns the first stop value (sink result or over-cap line), else null. */
  push(chunk: Uint8Array, sink: LineSink<S>): S | null {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(LF, start);
      if (newline === -1) {
        const rest = bytes.length - start;
        if (this.pendingBytes + rest > this.capBytes) return this.onTooLong(this.completedLines + 1);
        // Copy: the producer may reuse its buffer after we return.
        this.pieces.push(Buffer.from(bytes.subarray(start)));
        this.pendingBytes += rest;
        return null;
      }
      const lineBytes = this.pendingBytes + (newline - start) + 1;
      this.completedLines++;
      if (lineBytes > this.capBytes) return this.onTooLong(this.completedLines);
      let line = bytes.subarray(start, newline);
      if (this.pieces.length > 0) {
        this.pieces.push(line);
        line = Buffer.concat(this.pieces, lineBytes - 1);
        this.pieces = [];
        this.pendingBytes = 0;
      }
      if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
      const stop = sink(line, this.completedLines);
      if (stop !== null) return stop;
      start = newline + 1;
    }
    return null;
  }

  /** Ends the input: delivers a last line that had no `\n`. */
  finish(sink: LineSink<S>): S | null {
    if (this.pendingBytes === 0) return null;
    const line = Buffer.concat(this.pieces, this.pendingBytes);
    this.pieces = [];
    this.pendingBytes = 0;
    this.completedLines++;
    return sink(line, this.completedLines);
  }
}
