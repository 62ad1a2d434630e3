// Blank-line test with Python's `str.isspace()` set, since the batch format was defined by a
// Python reader: unlike JS `trim()` it includes \x1c-\x1f and \x85 and excludes U+FEFF (a stray
// BOM is never silently skipped; the reader refuses it).

import { Buffer } from "node:buffer";

function isPythonWhitespace(unit: number): boolean {
  if (unit <= 0x20) {
    // \t \n \v \f \r, the information separators \x1c-\x1f, and space.
    return (unit >= 0x09 && unit <= 0x0d) || (unit >= 0x1c && unit <= 0x20);
  }
  if (unit < 0x85) return false;
  switch (unit) {
    case 0x85:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
      return true;
    default:
      return unit >= 0x2000 && unit <= 0x200a;
  }
}

/** True when every character of `line` is Python whitespace (or the line is empty). */
export function isBlankLine(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    if (!isPythonWhitespace(line.charCodeAt(i))) return false;
  }
  return true;
}

/** `isBlankLine` for valid UTF-8 bytes, decoding only a line still blank at its first non-ASCII byte (a JSON line: one byte of work). */
export function isBlankBytes(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const unit = bytes[i] as number;
    if (unit >= 0x80) return isBlankLine(Buffer.from(bytes.buffer, bytes.byteOffset + i, bytes.length - i).toString("utf8"));
    if (!isPythonWhitespace(unit)) return false;
  }
  return true;
}
