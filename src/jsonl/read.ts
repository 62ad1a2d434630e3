// The strict streaming JSONL reader of `screen` and `ingest`: every record (with its problems) or
// one run-level refusal (`stopOnRecordProblem`: the first record with a problem too). Memory: one
// line below the cap, one chunk, the current line's value tree and the records kept, bounded by
// `maxTotalBytes` (docs/ingest.md, "Reader memory"). It throws only for caller errors and the
// source's own read errors; refusals name the rule and the limit (and the flag that changes it),
// never input text. Per line, in order: the line cap, strict UTF-8, no U+FEFF at its start (a BOM
// left by concatenating files too), blank lines skipped, record count, strict JSON (duplicate
// keys, depth, finite numbers), a string or object, the total of record bytes, its problems.
import { Buffer, isUtf8 } from "node:buffer";
import { createHash } from "node:crypto";
import { UsageError } from "../core/errors.js";
import { displayText } from "../core/display-text.js";
import { maxLineBytes, validateReaderLimits, type ReaderKind, type ReaderLimits } from "../documents/reader-limits.js";
import { BoundedLineSplitter } from "./lines.js";
import { startsWithByteOrderMark } from "../core/strict-document.js";
import { MAX_NESTING_DEPTH, parseJsonBytes } from "../core/parse-line.js";
import { buildRecord, RECORD_SHAPE, type RawRecord, type RecordProblem, type RecordProblemCode } from "./record.js";

/** The stable code of a reader refusal. */
type ReaderRefusalCode =
  | "line_too_long"
  | "invalid_utf8"
  | "bom"
  | "too_many_items"
  | "malformed_json"
  | "duplicate_key"
  | "too_deep"
  | "non_finite_number"
  | "not_a_record"
  | "total_bytes"
  | "record_problem";

/** Why the reader refused a whole input, with the line it stopped at; the message never contains input text. */
export interface ReaderRefusal {
  code: ReaderRefusalCode;
  /** 1-based line that triggered the refusal. */
  line: number | null;
  message: string;
  /** For `record_problem`: the record's first problem (its message names no input text). */
  problem?: RecordProblem;
}

/** Options of the strict read: the command whose rules apply and the limits. */
export interface ReadOptions {
  kind: ReaderKind;
  limits: ReaderLimits;
  /** Refuse at the first record with a problem (`record_problem`), as `screen` does; default false (ingest holds it). */
  stopOnRecordProblem?: boolean;
  /** The number of the source's first line (default 1): a shard keeps the input's numbers, so a refusal names a findable line. */
  firstLine?: number;
  /** Give each record a copy of its line's bytes (`RawRecord.lineBytes`). Default false. */
  keepLineBytes?: boolean;
}

/** Record problems caused by a limit the user can change, and the flag that changes it. */
const PROBLEM_FLAGS: Partial<Record<RecordProblemCode, string>> = {
  text_too_large: "--max-item-bytes",
  metadata_too_many_keys: "--max-metadata-keys",
  metadata_value_too_long: "--max-metadata-value-chars",
};

/** The flags that size the per-line cap (see limits.ts `maxLineBytes`). */
const LINE_CAP_FLAGS = "--max-item-bytes, --max-metadata-keys and --max-metadata-value-chars";

function refusal(code: ReaderRefusalCode, line: number | null, message: string): ReaderRefusal {
  return { code, line, message };
}

/** The result of `scanRecords`: how much was read, or a run-level refusal. */
export type ScanOutcome =
  | {
      ok: true;
      /** SHA-256 (hex) of every input byte; the input was read to its end. */
      inputSha256: string;
      bytesRead: number;
      /** Records yielded or handed to the callback. */
      records: number;
    }
  | { ok: false; refusal: ReaderRefusal };

/** The strict read handing each record to `onRecord` (awaited) in input order (`recordBatches` as a push). */
export async function scanRecords(
  source: AsyncIterable<Uint8Array>,
  options: ReadOptions,
  onRecord: (record: RawRecord) => void | Promise<void>,
): Promise<ScanOutcome> {
  const batches = recordBatches(source, options);
  let step = await batches.next();
  try {
    for (; step.done !== true; step = await batches.next()) for (const record of step.value) await onRecord(record);
    return step.value;
  } finally {
    // A failed `onRecord` stops the read and closes its source.
    if (step.done !== true) await batches.return(undefined as never);
  }
}

/**
 * The strict read as a pull: yields the records of each chunk, in input order, once the chunk is
 * split, and returns how much was read or the refusal. Records before a refused line may already
 * have been yielded: a refusal refuses the whole input. Returning early closes the source.
 */
export async function* recordBatches(source: AsyncIterable<Uint8Array>, options: ReadOptions): AsyncGenerator<RawRecord[], ScanOutcome, undefined> {
  const { kind, limits } = options;
  if (kind !== "screen" && kind !== "ingest") throw new UsageError("reader kind must be 'screen' or 'ingest'");
  validateReaderLimits(limits);
  const stopOnRecordProblem = options.stopOnRecordProblem === true;
  const firstLine = options.firstLine ?? 1;
  if (!Number.isSafeInteger(firstLine) || firstLine < 1) throw new UsageError("the first line number must be a positive integer");

  const cap = maxLineBytes(limits);
  const scope = kind === "screen" ? "batch" : "ingest";
  const unit = kind === "screen" ? "items" : "records";
  const what = kind === "screen" ? "item" : "record";
  const hash = createHash("sha256");
  let recordCount = 0;
  // Records of the current chunk, yielded once the chunk is split.
  let pending: RawRecord[] = [];
  let bytesRead = 0;
  let totalBytes = 0;

  const splitter = new BoundedLineSplitter<ReaderRefusal>(
    cap,
    (line) => refusal("line_too_long", line, `line ${line}: exceeds ${cap} bytes (per-line cap, set by ${LINE_CAP_FLAGS})`),
    firstLine,
  );

  const onLine = (bytes: Buffer, line: number): ReaderRefusal | null => {
    // Invalid UTF-8 is refused, never replaced. The line is parsed as bytes, never decoded whole.
    if (!isUtf8(bytes)) {
      return refusal("invalid_utf8", line, `line ${line}: invalid UTF-8 (input must be strict utf-8)`);
    }
    if (startsWithByteOrderMark(bytes)) {
      return refusal("bom", line, `line ${line}: starts with a byte order mark (U+FEFF is not allowed)`);
    }
    if (isBlankBytes(bytes)) return null;
    // Checked before the line is parsed: the (maxItems+1)-th record is never accepted.
    if (limits.maxItems !== 0 && recordCount >= limits.maxItems) {
      return refusal("too_many_items", line, `${scope} exceeds the limit of ${limits.maxItems} ${unit} (--max-items)`);
    }
    const index = recordCount;
    const parsed = parseJsonBytes(bytes, { maxDepth: MAX_NESTING_DEPTH, shape: RECORD_SHAPE });
    if (!parsed.ok) {
      // UTF-8 was checked above and no value budget is set (the line cap bounds a line), so
      // only the JSON rules can fail here.
      const code = parsed.code === "too_many_values" || parsed.code === "invalid_utf8" ? "malformed_json" : parsed.code;
      return refusal(code, line, `line ${line}: ${parsed.message}`);
    }
    const record = buildRecord(parsed.value, line, { index, kind, limits, loneSurrogate: parsed.loneSurrogate });
    if (record === null) {
      const expected = kind === "screen" ? "must be a string or object with 'text'" : "must be a string or an object";
      return refusal("not_a_record", line, `line ${line}: ${what} ${index}: ${expected}`);
    }
    if (options.keepLineBytes === true) record.lineBytes = Buffer.from(bytes);
    totalBytes += record.bytes;
    if (limits.maxTotalBytes !== 0 && totalBytes > limits.maxTotalBytes) {
      return refusal("total_bytes", line, `${scope} exceeds the limit of ${limits.maxTotalBytes} total bytes (--max-total-bytes)`);
    }
    const problem = record.problems[0];
    if (stopOnRecordProblem && problem !== undefined) {
      const flag = PROBLEM_FLAGS[problem.code];
      // Named by its line, counted from 1 like every other refusal, not by its 0-based index.
      const message = `line ${line}: ${problem.detail}`;
      // The metadata limits' messages already name their flag.
      return { code: "record_problem", line, message: flag === undefined || message.includes(flag) ? message : `${message} (${flag})`, problem };
    }
    recordCount++;
    pending.push(record);
    return null;
  };
  for await (const chunk of source) {
    if (!(chunk instanceof Uint8Array)) {
      throw new UsageError("the input source must yield bytes (Uint8Array), not text");
    }
    hash.update(chunk);
    bytesRead += chunk.byteLength;
    const stop = splitter.push(chunk, onLine);
    // Returning from `for await` closes the source, so nothing more is read.
    if (stop !== null) return { ok: false, refusal: stop };
    if (pending.length > 0) yield pending;
    pending = [];
  }
  const stop = splitter.finish(onLine);
  if (stop !== null) return { ok: false, refusal: stop };
  if (pending.length > 0) yield pending;
  return { ok: true, inputSha256: hash.digest("hex"), bytesRead, records: recordCount };
}

/**
 * Lines of Python `str.isspace()` whitespace only (the batch format was defined by a Python reader),
 * by UTF-16 code unit (no astral character is whitespace): unlike JS `trim()` it includes
 * \x1c-\x1f and \x85 and excludes U+FEFF (a stray BOM is never silently skipped; it is refused).
 */
const PYTHON_BLANK = /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

/** True when every character of `line` is Python whitespace (or the line is empty). */
export function isBlankLine(line: string): boolean {
  return PYTHON_BLANK.test(line);
}

/** `isBlankLine` for valid UTF-8 bytes, decoding only a line still blank at its first non-ASCII byte (a JSON line: one byte of work). */
export function isBlankBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const unit = bytes[i] as number;
    if (unit >= 0x80) return isBlankLine(Buffer.from(bytes.buffer, bytes.byteOffset + i, bytes.length - i).toString("utf8"));
    // \t \n \v \f \r, the information separators \x1c-\x1f, and space.
    if (!((unit >= 0x09 && unit <= 0x0d) || (unit >= 0x1c && unit <= 0x20))) return false;
  }
  return true;
}

/** `message` with ` (in PATH)` when the input is a file the message does not already name (so a user with several inputs knows which to fix); unchanged for a stream. */
export function refusalInInput(message: string, path: string | null): string {
  if (path === null || message.includes(displayText(path))) return message;
  return `${message} (in ${displayText(path)})`;
}
