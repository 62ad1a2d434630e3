// Splits the bytes of one JSON document, fed chunk by chunk, into its frame and the elements of
// one top-level array member (`"records":[…]`), without parsing anything: the fast read of a
// document laid out as little-canary writes it (canonical JSON, no whitespace). It only tracks
// strings (a quote not escaped by a backslash opens or closes one) and bracket depth outside
// them; string contents are skipped with the native `indexOf`, so the JavaScript loop runs only
// over the few structural bytes.
//
// It proves nothing. A split that is wrong for hostile bytes (whitespace, a missing member, a
// bracket inside a malformed string) gives pieces that the caller's canonical check refuses, and
// then the document is read by the strict grammar instead (canonical-json-file.ts). Every size is
// bounded: a piece longer than its limit, or nesting deeper than `maxDepth`, ends the split with
// NotCanonicalLayout, so the bytes held are at most one piece plus one chunk.

/** The bytes are not a document laid out canonically with the array named: read them strictly instead. */
export class NotCanonicalLayout extends Error {
  readonly code = "not_canonical";
  constructor(readonly why: string) {
    super(`not laid out canonically (${why})`);
    this.name = "NotCanonicalLayout";
  }
}

/** Bounds of one split. */
export interface SplitLimits {
  /** The top-level member whose array elements are split out. */
  readonly key: string;
  /** Most bytes of the head (up to and including the array's `[`) and of the tail (from its `]`). */
  readonly maxFrameBytes: number;
  /** Most bytes of one element. */
  readonly maxElementBytes: number;
  /** Deepest bracket nesting, counted from the root (the root object is depth 1). */
  readonly maxDepth: number;
}

/** Which piece of the document a callback receives. */
export type SplitPieceKind = "head" | "element" | "tail";

/**
 * Receives each piece as it completes. `bytes` is a view of the splitter's buffer, valid until
 * the next `feed` or `end`: copy or consume it before then.
 */
export type SplitSink = (kind: SplitPieceKind, bytes: Buffer) => void;

const HEAD = 0;
const ELEMENTS = 1;
const TAIL = 2;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The push splitter: `feed` each chunk, then `end`. Throws NotCanonicalLayout on anything unexpected. */
export class CanonicalSplitter {
  /** Bytes from the start of the current piece to the last byte fed. */
  private acc: Buffer = Buffer.alloc(0);
  private length = 0;
  private scanned = 0;
  private pieceStart = 0;
  private phase: typeof HEAD | typeof ELEMENTS | typeof TAIL = HEAD;
  private depth = 0;
  private inString = false;
  private escape = false;
  private rootClosed = false;
  /** Commas seen between elements: `[]` has no element, `[1,]` an empty last one. */
  private commas = 0;
  private readonly marker: Buffer;

  constructor(private readonly limits: SplitLimits) {
    this.marker = Buffer.from(`${JSON.stringify(limits.key)}:`, "utf8");
  }

  /** Scans the next chunk, handing completed pieces to `sink`. */
  feed(chunk: Uint8Array, sink: SplitSink): void {
    // Keep only the current piece: move it to the front. Done here, not after the scan, so that
    // the pieces handed over by the last feed stay intact until this one.
    if (this.pieceStart > 0) {
      this.acc.copyWithin(0, this.pieceStart, this.length);
      this.length -= this.pieceStart;
      this.scanned -= this.pieceStart;
      this.pieceStart = 0;
    }
    const needed = this.length + chunk.byteLength;
    if (needed > this.acc.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.acc.length * 2, 1 << 16));
      this.acc.copy(grown, 0, 0, this.length);
      this.acc = grown;
    }
    this.acc.set(chunk, this.length);
    this.length = needed;
    this.scan(sink);
    const limit = this.phase === ELEMENTS ? this.limits.maxElementBytes : this.limits.maxFrameBytes;
    if (this.length - this.pieceStart > limit) throw new NotCanonicalLayout("a piece is larger than its limit");
  }

  /** The input ended: hands the tail to `sink`, or throws when the document is not complete. */
  end(sink: SplitSink): void {
    if (this.phase !== TAIL || !this.rootClosed || this.inString) throw new NotCanonicalLayout("the document ended early");
    sink("tail", this.acc.subarray(this.pieceStart, this.length));
  }

  private scan(sink: SplitSink): void {
    const bytes = this.acc.subarray(0, this.length);
    const end = this.length;
    let pos = this.scanned;
    // Next quote and backslash at or after `pos` (end when none): found once, reused until passed.
    let nextQuote = -1;
    let nextBackslash = -1;
    while (pos < end) {
      if (this.inString) {
        if (this.escape) {
          this.escape = false;
          pos++;
          continue;
        }
        if (nextQuote < pos) nextQuote = found(bytes.indexOf(QUOTE, pos), end);
        if (nextBackslash < pos) nextBackslash = found(bytes.indexOf(BACKSLASH, pos), end);
        if (nextBackslash < nextQuote) {
          pos = nextBackslash + 1;
          this.escape = true;
          continue;
        }
        pos = nextQuote === end ? end : nextQuote + 1;
        if (nextQuote !== end) this.inString = false;
        continue;
      }
      const unit = bytes[pos] as number;
      if (this.rootClosed) throw new NotCanonicalLayout("bytes after the document");
      if (unit === QUOTE) {
        this.inString = true;
      } else if (unit === 0x7b /* { */ || unit === 0x5b /* [ */) {
        this.depth++;
        if (this.depth > this.limits.maxDepth) throw new NotCanonicalLayout("nesting too deep");
        if (this.phase === HEAD && unit === 0x5b && this.depth === 2 && this.atMarker(bytes, pos)) {
          sink("head", bytes.subarray(this.pieceStart, pos + 1));
          this.phase = ELEMENTS;
          this.pieceStart = pos + 1;
        }
      } else if (unit === 0x7d /* } */ || unit === 0x5d /* ] */) {
        if (this.phase === ELEMENTS && this.depth === 2) {
          if (unit !== 0x5d) throw new NotCanonicalLayout("unbalanced brackets");
          if (this.commas > 0 || pos > this.pieceStart) sink("element", bytes.subarray(this.pieceStart, pos));
          this.phase = TAIL;
          this.pieceStart = pos;
        }
        this.depth--;
        if (this.depth < 0) throw new NotCanonicalLayout("unbalanced brackets");
        if (this.depth === 0) {
          if (this.phase !== TAIL) throw new NotCanonicalLayout(`no top-level "${this.limits.key}" array`);
          this.rootClosed = true;
        }
      } else if (unit === 0x2c /* , */ && this.phase === ELEMENTS && this.depth === 2) {
        this.commas++;
        sink("element", bytes.subarray(this.pieceStart, pos));
        this.pieceStart = pos + 1;
      }
      pos++;
    }
    this.scanned = pos;
  }

  /** Whether the `[` at `pos` follows `"key":` right after the root's `{` or a `,`. */
  private atMarker(bytes: Buffer, pos: number): boolean {
    const start = pos - this.marker.length;
    if (start - 1 < this.pieceStart) return false;
    const before = bytes[start - 1];
    return (before === 0x7b || before === 0x2c) && bytes.compare(this.marker, 0, this.marker.length, start, pos) === 0;
  }
}

/** An `indexOf` result, with "not found" as `end`. */
function found(at: number, end: number): number {
  return at === -1 ? end : at;
}
