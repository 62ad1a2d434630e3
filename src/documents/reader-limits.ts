// Reader limits: the defaults, their validation (once, before any byte is read, so a bad flag
// never turns into a partially read run), and the per-line byte cap derived from them. The cap
// bounds memory while reading hostile input (a longer line is refused before it is assembled),
// and is chosen so that a compact record within every other limit always fits, whatever
// characters it uses and however they are escaped.

import { UsageError } from "../core/errors.js";
import { refuseUnknownOptions } from "../core/guards.js";

/** The limits the strict JSONL reader enforces (counts, UTF-8 bytes and code points). */
export interface ReaderLimits {
  /** Most records (non-blank lines) accepted; one more refuses the run. */
  maxItems: number;
  /** Most UTF-8 bytes of one record's text (a budget, reported per record). */
  maxItemBytes: number;
  /** Most UTF-8 bytes of all texts together; more refuses the run. */
  maxTotalBytes: number;
  /** Most metadata keys per record. */
  maxMetadataKeys: number;
  /** Most code points of one metadata value. */
  maxMetadataValueChars: number;
}

export type ReaderKind = "screen" | "ingest";

/** The highest value `maxItemBytes` may take. */
export const MAX_ITEM_BYTES_CEILING = 67108864; // 64 MiB
/** Most code points of `id` and `source`. */
export const MAX_LABEL_CHARS = 256;
/** Most code points of a metadata key (fixed, not configurable). */
export const MAX_METADATA_KEY_CHARS = 128;

/**
 * Room in the per-line cap for everything except the text (and metadata).
 *
 * The worst case for a label is an astral character written as a pair of escapes
 * (`\ud83d\ude00`): 12 bytes per code point, so two labels of MAX_LABEL_CHARS take
 * 2 × 12 × 256 = 6144 bytes. The keys, quotes, colons, commas and braces of a compact record
 * (`{"text":"","id":"","source":""}`) and a `\r\n` terminator need under 40 bytes; the
 * remaining 4096 leave room for modest whitespace. 4096 + 6144 = 10240.
 */
export const LINE_SLACK = 10240;

/**
 * Escaping multiplies a text's size by at most 6: a one-byte control character becomes
 * `\u0001` (6 bytes); larger characters grow less (a 4-byte astral character becomes 12 bytes).
 */
const TEXT_ESCAPE_FACTOR = 6;
/**
 * The most bytes a text within every policy's `max_item_bytes` takes as a JSON string, escapes
 * and all: what a reader of ingest's export must hold as one token, whatever the text's characters.
 */
export const MAX_TEXT_JSON_BYTES = TEXT_ESCAPE_FACTOR * MAX_ITEM_BYTES_CEILING + 2;
/** Worst-case bytes per code point of an escaped metadata key or value (see LINE_SLACK). */
const ESCAPED_BYTES_PER_CODE_POINT = 12;
/** `"":"",` around one metadata entry, rounded up. */
const METADATA_ENTRY_OVERHEAD = 8;
/** `,"metadata":{}` rounded up. */
const METADATA_OBJECT_OVERHEAD = 16;

/** The reader limits used when none are given (text sizes in UTF-8 bytes: 64 KiB a record, 8 MiB in all). */
export const DEFAULT_READER_LIMITS: Readonly<ReaderLimits> = Object.freeze({
  maxItems: 1000,
  maxItemBytes: 65536,
  maxTotalBytes: 8388608,
  maxMetadataKeys: 32,
  maxMetadataValueChars: 1024,
});

/** The CLI flag that sets each limit, so messages name what the user typed. */
const FLAG_NAMES: Readonly<Record<keyof ReaderLimits, string>> = {
  maxItems: "--max-items",
  maxItemBytes: "--max-item-bytes",
  maxTotalBytes: "--max-total-bytes",
  maxMetadataKeys: "--max-metadata-keys",
  maxMetadataValueChars: "--max-metadata-value-chars",
};

const LIMIT_ORDER: readonly (keyof ReaderLimits)[] = ["maxItemBytes", "maxItems", "maxTotalBytes", "maxMetadataKeys", "maxMetadataValueChars"];

// Any finite integer counts (even above 2^53), so `--max-item-bytes 1e30` is reported as too
// large rather than as not an integer.
function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * How a refusal names a limit: "flag" as the CLI's flag (`--max-items`), "option" as a library
 * caller's `limits` key (`limits.maxItems`), so a message names what the caller wrote.
 */
export type LimitNaming = "flag" | "option";

/** Throws UsageError naming the first invalid limit; returns the limits unchanged otherwise. */
export function validateReaderLimits(limits: ReaderLimits, naming: LimitNaming = "flag"): ReaderLimits {
  const nameOf = (name: keyof ReaderLimits): string => (naming === "flag" ? FLAG_NAMES[name] : `limits.${name}`);
  if (typeof limits !== "object" || limits === null) throw new UsageError("reader limits must be an object");
  for (const name of LIMIT_ORDER) {
    const value: unknown = limits[name];
    if (!isNonNegativeInteger(value)) throw new UsageError(`${nameOf(name)} must be a non-negative integer`);
  }
  if (limits.maxItemBytes > MAX_ITEM_BYTES_CEILING) throw new UsageError(`${nameOf("maxItemBytes")} must not exceed ${MAX_ITEM_BYTES_CEILING}`);
  return limits;
}

/**
 * A library call's `limits` option over the defaults: a key it does not know (`maxItem`) is
 * refused, never ignored, and every value checked, named as `naming` says.
 */
export function readerLimitsOption(where: string, limits: unknown, naming: LimitNaming): ReaderLimits {
  // null stands for the option not given, as everywhere in the library.
  if (limits === undefined || limits === null) return { ...DEFAULT_READER_LIMITS };
  refuseUnknownOptions(`${where} limits`, limits, LIMIT_ORDER);
  return validateReaderLimits({ ...DEFAULT_READER_LIMITS, ...(limits as Partial<ReaderLimits>) }, naming);
}

/**
 * The per-line cap in UTF-8 bytes (terminator included): a line of exactly this size is read,
 * one byte more refuses the run. It has room for the largest allowed metadata, the same in
 * screen and ingest (both read the same records).
 */
export function maxLineBytes(limits: ReaderLimits): number {
  const base = TEXT_ESCAPE_FACTOR * limits.maxItemBytes + LINE_SLACK;
  const entry = ESCAPED_BYTES_PER_CODE_POINT * (MAX_METADATA_KEY_CHARS + limits.maxMetadataValueChars) + METADATA_ENTRY_OVERHEAD;
  return base + limits.maxMetadataKeys * entry + METADATA_OBJECT_OVERHEAD;
}
