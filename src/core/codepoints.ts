// Code-point helpers for untrusted text (every length, offset and cap counts Unicode code points).
// JS `.length`/`.slice` count UTF-16 units and can split a surrogate pair, which would corrupt
// offsets, hashes and caps; every length or slice of untrusted text goes through this module.

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Whether `text` holds any surrogate, paired or lone (one native scan). Without one, every code
 * point is one UTF-16 unit, so unit counts and offsets are code-point counts and offsets.
 */
export function hasSurrogate(text: string): boolean {
  return SURROGATE.test(text);
}

/** Number of Unicode code points in `text` (a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  // Without surrogates every code point is one UTF-16 unit; the native scan is far cheaper.
  if (!hasSurrogate(text)) return text.length;
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * Code points of `text`, or null when it is not well-formed (it holds a lone surrogate): one native
 * scan for a text with no surrogate at all, the common case, instead of one for each question.
 */
export function wellFormedLength(text: string): number | null {
  if (!hasSurrogate(text)) return text.length;
  return text.isWellFormed() ? codePointLength(text) : null;
}

/** First `max` code points of `text`; never splits a surrogate pair. */
export function truncateCodePoints(text: string, max: number): string {
  let units = 0;
  let seen = 0;
  // The string iterator yields a surrogate pair as one code point and a lone surrogate as one unit.
  for (const char of text) {
    if (!(seen++ < max)) break;
    units += char.length;
  }
  return text.slice(0, units);
}

/** Any code point that is not Unicode White_Space (a lone surrogate is not White_Space). */
const NOT_WHITE_SPACE = /\P{White_Space}/u;

/**
 * True when `text` has nothing to screen: it is empty, or every code point is Unicode
 * White_Space (spaces, tabs, line breaks, NBSP, U+3000…). Format characters such as U+200B or
 * U+FEFF are not White_Space, so a text of them is screened (the structural layer reads them).
 * The one rule behind every "no text" refusal: check, /check, screen and ingest records.
 */
export function isBlankText(text: string): boolean {
  return !NOT_WHITE_SPACE.test(text);
}

/**
 * UTF-8 size of `text` in bytes; a lone surrogate counts 3 bytes (what its WTF-8 form takes),
 * so budgets are never under-counted for malformed text.
 */
export function utf8ByteLength(text: string): number {
  // Node's encoder writes a lone surrogate as U+FFFD, also 3 bytes, so its count is the same
  // (a test compares it with a per-unit count over every kind of unit).
  return Buffer.byteLength(text, "utf8");
}

/**
 * Code points of the strict UTF-8 bytes `bytes[from, to)` (the caller proved them strict, with
 * `isUtf8`), or null when one of them is a control character (below U+0020). Strict UTF-8 has one
 * lead byte per code point, so the count is the bytes less the continuation bytes (`10xxxxxx`),
 * counted four at a time: the text is never decoded to a string.
 */
export function utf8CodePointsOutsideControls(bytes: Uint8Array, from: number, to: number): number | null {
  let at = from;
  let continuations = 0;
  let controls = false;
  const single = (byte: number): void => {
    if ((byte & 0xc0) === 0x80) continuations++;
    else if (byte < 0x20) controls = true;
  };
  // Bytes before the first four-byte boundary of the underlying buffer, one at a time.
  while (at < to && ((bytes.byteOffset + at) & 3) !== 0) single(bytes[at++] as number);
  const words = (to - at) >>> 2;
  // At the end already (a range shorter than the bytes to a boundary), `at` may not be aligned.
  const view = words === 0 ? new Int32Array(0) : new Int32Array(bytes.buffer, bytes.byteOffset + at, words);
  for (let i = 0; i < words; i++) {
    const word = view[i] as number;
    // Bit 7 of each byte that is 10xxxxxx (bit 6 shifted under bit 7 of the same byte, negated).
    const marks = (word & ~(word << 1) & 0x80808080) >>> 7;
    continuations += Math.imul(marks, 0x01010101) >>> 24;
    // Some byte below 0x20: the borrow of `word - 0x20202020` sets bit 7 of a byte that was below
    // 0x20 and had bit 7 clear (exact for whether any byte is, the test's only question).
    if (((word - 0x20202020) & ~word & 0x80808080) !== 0) controls = true;
  }
  at += words * 4;
  while (at < to) single(bytes[at++] as number);
  return controls ? null : to - from - continuations;
}

/** Code points of the strict UTF-8 `bytes` (the caller proved them strict): one lead byte each, so the bytes less the continuation bytes (`10xxxxxx`). */
export function utf8CodePoints(bytes: Uint8Array): number {
  let continuations = 0;
  for (const byte of bytes) if ((byte & 0xc0) === 0x80) continuations++;
  return bytes.length - continuations;
}

/** The byte offset in strict UTF-8 `bytes` of the code point `count` code points after the one at byte `from` (within the bytes). */
export function utf8CodePointOffset(bytes: Uint8Array, from: number, count: number): number {
  let at = from;
  for (let seen = 0; seen < count; seen++) {
    const lead = bytes[at] as number;
    // A lead byte says how many bytes its code point takes.
    at += lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
  }
  return at;
}
