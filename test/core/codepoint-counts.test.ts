import { describe, expect, it } from "vitest";
import { codePointLength, utf8ByteLength } from "../../src/core/codepoints.js";

// Per-unit reference counts: what the fast paths must agree with for every kind of UTF-16 unit
// (ASCII, two- and three-byte units, both surrogate halves alone and paired, noncharacters).
function referenceCodePoints(text: string): number {
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

function referenceUtf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

const UNITS = [0x00, 0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffe, 0xffff];

describe("code-point and UTF-8 counts", () => {
  it("codePointLength and utf8ByteLength agree with per-unit counts on every mix of unit kinds", () => {
    let state = 7;
    const next = (): number => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state;
    };
    for (let n = 0; n < 20_000; n++) {
      let text = "";
      const length = next() % 9;
      for (let k = 0; k < length; k++) text += String.fromCharCode(UNITS[next() % UNITS.length] as number);
      expect([codePointLength(text), utf8ByteLength(text)]).toEqual([referenceCodePoints(text), referenceUtf8Bytes(text)]);
    }
  });

  it("a lone surrogate counts one code point and three bytes; a pair one code point and four", () => {
    expect([codePointLength("a\ud800b"), utf8ByteLength("a\ud800b")]).toEqual([3, 5]);
    expect([codePointLength("\udc00"), utf8ByteLength("\udc00")]).toEqual([1, 3]);
    expect([codePointLength("😀"), utf8ByteLength("😀")]).toEqual([1, 4]);
    expect([codePointLength("Zürich 東京"), utf8ByteLength("Zürich 東京")]).toEqual([9, 14]);
  });
});
