// The one strict reader for a whole document held as bytes: strict UTF-8, no byte order mark,
// then the strict JSON parser of the JSONL reader (no duplicate keys at any depth, bounded
// nesting, finite numbers, optional shape and value budget). Every file little-canary reads
// as one JSON document (manifests, exports, eval corpora, demo captures) goes through here, so
// a document cannot mean one thing to one command and another to the next. Problems are
// values with a stable code; the input is never echoed.
import { isUtf8 } from "node:buffer";
import { parseJsonBytes, type LineParseResult, type ParseOptions } from "./parse-line.js";

/** U+FEFF encoded as UTF-8 at the start. */
export function startsWithByteOrderMark(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

const BOM_PROBLEM = { ok: false, code: "byte_order_mark", message: "starts with a byte order mark" } as const;
const UTF8_PROBLEM = { ok: false, code: "invalid_utf8", message: "invalid UTF-8" } as const;

/** Bytes as text: refused when they start with a byte order mark or are not strict UTF-8. */
export function decodeStrictText(bytes: Uint8Array): { readonly ok: true; readonly text: string } | typeof BOM_PROBLEM | typeof UTF8_PROBLEM {
  if (startsWithByteOrderMark(bytes)) return BOM_PROBLEM;
  return isUtf8(bytes) ? { ok: true, text: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8") } : UTF8_PROBLEM;
}

/**
 * Parses a whole document's bytes strictly: a byte order mark first, then strict UTF-8 (the
 * bytes are parsed as bytes, never decoded whole), then the JSON rules of parseJsonBytes (with
 * its options: shape, depth, value budget). `loneSurrogate` says whether some string holds an
 * escaped lone surrogate; callers decide if that is allowed.
 * Never throws for any bytes. Size limits are the caller's: they differ by document, and a
 * caller should refuse an oversized file before reading it.
 */
export function readStrictDocument(bytes: Uint8Array, options: ParseOptions = {}): LineParseResult | typeof BOM_PROBLEM {
  if (startsWithByteOrderMark(bytes)) return BOM_PROBLEM;
  return parseJsonBytes(bytes, options);
}
