// The one strict document reader and the readers that go through it: every JSON document the
// library reads whole (manifest/export for verify, eval corpora, demo captures) refuses the same
// inputs for the same reasons.
import { describe, expect, it } from "vitest";
import { decodeStrictText, readStrictDocument } from "../../src/core/strict-document.js";
import { parseCaptureJson } from "../../src/demo/capture.js";
import { CorpusError, loadCorpora } from "../../src/eval/corpus.js";
import { parseJsonDocument } from "../../src/core/read-document.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf, ...enc("[]"));
const BAD_UTF8 = Uint8Array.of(0x5b, 0x22, 0xc3, 0x28, 0x22, 0x5d);
const DUPLICATE = enc('{"a":1,"a":2}');

describe("readStrictDocument", () => {
  it("parses strict JSON bytes to the value JSON.parse gives", () => {
    expect(readStrictDocument(enc('{"a":[1,"x",null,true]}'))).toEqual({ ok: true, value: { a: [1, "x", null, true] }, loneSurrogate: false });
  });

  it("refuses a byte order mark, invalid UTF-8 and duplicate keys with stable codes", () => {
    expect(readStrictDocument(BOM)).toMatchObject({ ok: false, code: "byte_order_mark" });
    expect(readStrictDocument(BAD_UTF8)).toMatchObject({ ok: false, code: "invalid_utf8" });
    expect(readStrictDocument(DUPLICATE)).toMatchObject({ ok: false, code: "duplicate_key" });
    expect(readStrictDocument(enc("[1e400]"))).toMatchObject({ ok: false, code: "non_finite_number" });
  });

  it("reports an escaped lone surrogate and honours the value budget", () => {
    expect(readStrictDocument(enc('["\\ud800"]'))).toMatchObject({ ok: true, loneSurrogate: true });
    expect(readStrictDocument(enc("[1,2,3]"), { maxValues: 2 })).toMatchObject({ ok: false, code: "too_many_values" });
  });

  it("a refusal never echoes the input", () => {
    const secret = enc('{"secret-value":1,"secret-value":2}');
    const result = readStrictDocument(secret);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain("secret");
  });

  it("decodeStrictText refuses a BOM and invalid UTF-8, keeps everything else", () => {
    expect(decodeStrictText(BOM)).toMatchObject({ ok: false, code: "byte_order_mark" });
    expect(decodeStrictText(BAD_UTF8)).toMatchObject({ ok: false, code: "invalid_utf8" });
    expect(decodeStrictText(enc("héllo\n"))).toEqual({ ok: true, text: "héllo\n" });
  });
});

describe("the document readers share the strict rules", () => {
  const corpus = (bytes: Uint8Array) => loadCorpora(["c.json"], { cwd: "/", readFile: async () => bytes });

  it("verify, eval corpora and demo captures all refuse a BOM", async () => {
    expect(() => parseJsonDocument(BOM, "manifest")).toThrow("cannot read manifest (starts with a byte order mark)");
    await expect(corpus(BOM)).rejects.toThrow("a byte order mark is not accepted");
    expect(parseCaptureJson(BOM)).toBeUndefined();
  });

  it("verify, eval corpora and demo captures all refuse invalid UTF-8", async () => {
    expect(() => parseJsonDocument(BAD_UTF8, "export")).toThrow("cannot read export (not valid UTF-8)");
    await expect(corpus(BAD_UTF8)).rejects.toThrow("corpus 1 (c.json): not valid UTF-8");
    expect(parseCaptureJson(BAD_UTF8)).toBeUndefined();
  });

  it("verify, eval corpora and demo captures all refuse duplicate keys", async () => {
    expect(() => parseJsonDocument(DUPLICATE, "manifest")).toThrow("cannot read manifest (duplicate key)");
    await expect(corpus(enc('{"cases":[],"cases":[]}'))).rejects.toBeInstanceOf(CorpusError);
    await expect(corpus(enc('{"cases":[],"cases":[]}'))).rejects.toThrow(/duplicate/);
    expect(parseCaptureJson(DUPLICATE)).toBeUndefined();
  });
});
