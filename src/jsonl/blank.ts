// Blank-line test with Python's `str.isspace()` set, since the batch format was defined by a
// Python reader: unlike JS `trim()` it includes \x1c-\x1f and \x85 and excludes U+FEFF (a stray
// BOM is never silently skipped; the reader refuses it).

import { Buffer } from "node:buffer";

/** Lines of Python whitespace only, by UTF-16 code unit (no astral character is whitespace). */
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
