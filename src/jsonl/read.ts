// The strict streaming JSONL reader shared by `screen` and `ingest` (decision 4).
//
// Contract: reads a byte source to the end, holding at most one line (below the per-line cap)
// plus one chunk, and returns either every record (with its record-level problems) or one
// run-level refusal. It never throws for any input bytes; it throws only for caller errors
// (invalid limits, a source that yields text instead of bytes) and re-throws the source's own
// read errors. Refusal messages name the rule and the limit, never any input text.
//
// Run-level rules, checked per line in this order: per-line cap (while reading), strict UTF-8,
// no U+FEFF at the start of a line (a BOM at the start of the input is line 1; a U+FEFF starting
// a later line is refused the same way, since it is a BOM left by concatenating files), blank
// lines skipped, record count, strict JSON (duplicate keys at any depth, nesting depth, finite
// numbers), a string or object per line, then the running total of text bytes.

import { createHash } from "node:crypto";
import { UsageError } from "../errors.js";
import { isBlankLine } from "./blank.js";
import { maxLineBytes, validateReaderLimits, type ReaderKind, type ReaderLimits } from "./limits.js";
import { BoundedLineSplitter } from "./lines.js";
import { MAX_NESTING_DEPTH, parseJsonLine } from "./parse-line.js";
import { buildRecord, type RawRecord } from "./record.js";

export type ReaderRefusalCode =
  | "line_too_long"
  | "invalid_utf8"
  | "bom"
  | "too_many_items"
  | "malformed_json"
  | "duplicate_key"
  | "too_deep"
  | "non_finite_number"
  | "not_a_record"
  | "total_bytes";

export interface ReaderRefusal {
  code: ReaderRefusalCode;
  /** 1-based line that triggered the refusal. */
  line: number | null;
  message: string;
}

export type ReadOutcome =
  | {
      ok: true;
      records: RawRecord[];
      /** SHA-256 (hex) of every input byte; the input was read to its end. */
      inputSha256: string;
      bytesRead: number;
    }
  | { ok: false; refusal: ReaderRefusal };

export interface ReadOptions {
  kind: ReaderKind;
  limits: ReaderLimits;
}

const BYTE_ORDER_MARK = 0xfeff;

function refusal(code: ReaderRefusalCode, line: number | null, message: string): ReaderRefusal {
  return { code, line, message };
}

export async function readRecords(source: AsyncIterable<Uint8Array>, options: ReadOptions): Promise<ReadOutcome> {
  const { kind, limits } = options;
  if (kind !== "screen" && kind !== "ingest") throw new UsageError("reader kind must be 'screen' or 'ingest'");
  validateReaderLimits(limits);

  const cap = maxLineBytes(limits, kind);
  const scope = kind === "screen" ? "batch" : "ingest";
  const unit = kind === "screen" ? "items" : "records";
  const what = kind === "screen" ? "item" : "record";
  // fatal: invalid UTF-8 is refused, never replaced; ignoreBOM: keep U+FEFF so we can refuse it.
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const hash = createHash("sha256");
  const records: RawRecord[] = [];
  let bytesRead = 0;
  let totalTextBytes = 0;

  const splitter = new BoundedLineSplitter<ReaderRefusal>(cap, (line) =>
    refusal("line_too_long", line, `line ${line}: exceeds ${cap} bytes (per-line cap)`),
  );

  const onLine = (bytes: Buffer, line: number): ReaderRefusal | null => {
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      return refusal("invalid_utf8", line, `line ${line}: invalid UTF-8 (input must be strict utf-8)`);
    }
    if (text.charCodeAt(0) === BYTE_ORDER_MARK) {
      return refusal("bom", line, `line ${line}: starts with a byte order mark (U+FEFF is not allowed)`);
    }
    if (isBlankLine(text)) return null;
    // Checked before the line is parsed: the (maxItems+1)-th record is never accepted.
    if (records.length >= limits.maxItems) {
      return refusal("too_many_items", line, `${scope} exceeds the limit of ${limits.maxItems} ${unit}`);
    }
    const parsed = parseJsonLine(text, MAX_NESTING_DEPTH);
    if (!parsed.ok) return refusal(parsed.code, line, `line ${line}: ${parsed.message}`);
    const index = records.length;
    const record = buildRecord(parsed.value, line, { index, kind, limits, loneSurrogate: parsed.loneSurrogate });
    if (record === null) {
      const expected = kind === "screen" ? "must be a string or object with 'text'" : "must be a string or an object";
      return refusal("not_a_record", line, `line ${line}: ${what} ${index}: ${expected}`);
    }
    totalTextBytes += record.textBytes;
    if (totalTextBytes > limits.maxTotalBytes) {
      return refusal("total_bytes", line, `${scope} exceeds the limit of ${limits.maxTotalBytes} total bytes`);
    }
    records.push(record);
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
  }
  const stop = splitter.finish(onLine);
  if (stop !== null) return { ok: false, refusal: stop };
  return { ok: true, records, inputSha256: hash.digest("hex"), bytesRead };
}
