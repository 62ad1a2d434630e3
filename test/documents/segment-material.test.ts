import { describe, expect, it } from "vitest";
import { compareCodePoints } from "../../src/core/code-point-order.js";
import { metadataMaterial } from "../../src/documents/segment-material.js";

describe("metadataMaterial", () => {
  it("joins id, source and sorted metadata lines without a trailing newline", () => {
    expect(metadataMaterial({ id: "a", source: "b", metadata: { z: "1", k: "2" } })).toBe("id: a\nsource: b\nk: 2\nz: 1");
  });

  it("is empty with no labels and no metadata, and omits null labels", () => {
    expect(metadataMaterial({ id: null, source: null, metadata: {} })).toBe("");
    expect(metadataMaterial({ id: null, source: "s", metadata: {} })).toBe("source: s");
    expect(metadataMaterial({ id: "", source: null, metadata: {} })).toBe("id: ");
  });

  it("inserts values verbatim, newlines included", () => {
    expect(metadataMaterial({ id: "BLOCK-label", source: null, metadata: {} })).toBe("id: BLOCK-label");
    expect(metadataMaterial({ id: null, source: null, metadata: { "a\nid": "BLK" } })).toBe("a\nid: BLK");
  });

  it("orders keys by code point, not by UTF-16 unit (astral after U+E000–U+FFFF)", () => {
    const astral = "\u{1F600}"; // stored as D83D DE00, which UTF-16 order puts before U+FF01
    const fullwidth = "\uFF01";
    expect([astral, fullwidth].sort()).toEqual([astral, fullwidth]); // the JS default
    const material = metadataMaterial({ id: null, source: null, metadata: { [astral]: "x", [fullwidth]: "y" } });
    expect(material).toBe(`${fullwidth}: y\n${astral}: x`);
  });

  it("treats __proto__ as an ordinary key", () => {
    const metadata = JSON.parse('{"__proto__":"p","a":"b"}') as Record<string, string>;
    expect(metadataMaterial({ id: null, source: null, metadata })).toBe("__proto__: p\na: b");
  });
});

describe("compareCodePoints", () => {
  it("orders by code point and treats a prefix as smaller", () => {
    expect(compareCodePoints("a", "b")).toBeLessThan(0);
    expect(compareCodePoints("ab", "a")).toBeGreaterThan(0);
    expect(compareCodePoints("", "")).toBe(0);
    expect(compareCodePoints("\u{10000}", "\uFFFF")).toBeGreaterThan(0);
  });
});
