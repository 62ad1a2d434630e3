// The two reads of a sharded ingest: the whole input counted (physical lines, SHA-256), since a
// shard's range depends on the line count; then read again, only the shard's lines' bytes
// (terminators included) passed to the strict reader while the whole stream is hashed and
// counted once more, so a file changed in between is refused and a shard is always cut from the
// input its manifest names. Physical lines are the reader's (lines.ts); an empty input has none.
import { createHash } from "node:crypto";
import { LittleCanaryError, UsageError } from "../core/errors.js";
import type { LineRange } from "../documents/shard.js";

const LF = 0x0a;

/** What the first read found: the input's physical line count, its size and its SHA-256. */
export interface InputLineCount {
  readonly lines: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** Counts the physical lines of a byte source and hashes it; memory holds one chunk. An abort stops it between chunks. */
export async function countInputLines(source: AsyncIterable<Uint8Array>, signal?: AbortSignal): Promise<InputLineCount> {
  const scanning = scan(source, null, signal);
  let step = await scanning.next();
  while (!step.done) step = await scanning.next();
  return step.value;
}

/** The input changed between the count and the read of a sharded run. */
export class InputChangedError extends LittleCanaryError {
  override readonly name = "InputChangedError";
  constructor(what: string) {
    super("input_refused", `the input ${what} changed while it was read (its SHA-256 or line count differs from the first read); nothing written`);
  }
}

/**
 * The bytes of `range`'s lines of `source` (views valid until the next pull), reading it to its
 * end, where the whole stream must match `expected` (else InputChangedError naming `what`).
 */
export async function* selectLineRange(
  source: AsyncIterable<Uint8Array>,
  range: LineRange,
  expected: InputLineCount,
  what: string,
): AsyncGenerator<Uint8Array> {
  const found = yield* scan(source, range);
  if (found.lines !== expected.lines || found.bytes !== expected.bytes || found.sha256 !== expected.sha256) throw new InputChangedError(what);
}

/** Both reads: yields the bytes of `range`'s lines (none without one), returns the whole stream's count. */
async function* scan(source: AsyncIterable<Uint8Array>, range: LineRange | null, signal?: AbortSignal): AsyncGenerator<Uint8Array, InputLineCount> {
  const hash = createHash("sha256");
  // The range starts after `startAfter` newlines and ends with the `endWith`-th (or at the end).
  const startAfter = (range?.first_line ?? 1) - 1;
  const endWith = startAfter + (range?.lines ?? 0);
  let newlines = 0;
  let bytes = 0;
  let last = -1;
  for await (const chunk of source) {
    if (signal?.aborted) throw signal.reason;
    if (!(chunk instanceof Uint8Array)) throw new UsageError("the input source must yield bytes (Uint8Array), not text");
    hash.update(chunk);
    bytes += chunk.byteLength;
    if (chunk.byteLength > 0) last = chunk[chunk.byteLength - 1] as number;
    let from = newlines >= startAfter && newlines < endWith ? 0 : -1;
    let to = -1;
    for (let at = chunk.indexOf(LF); at !== -1; at = chunk.indexOf(LF, at + 1)) {
      newlines++;
      if (newlines === startAfter && startAfter < endWith) from = at + 1;
      if (newlines === endWith && from !== -1) to = at + 1;
    }
    if (from !== -1) {
      const end = to === -1 ? chunk.byteLength : to;
      if (end > from) yield chunk.subarray(from, end);
    }
  }
  return { lines: newlines + (bytes > 0 && last !== LF ? 1 : 0), bytes, sha256: hash.digest("hex") };
}
