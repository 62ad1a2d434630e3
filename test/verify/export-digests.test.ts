// An export record's digests and text length taken from its canonical bytes, or from the text the
// fast reader left as bytes, equal those computed from its fields, for any text (escapes, control
// characters, astral characters, lone surrogates), labels and metadata; and bytes that are not laid
// out as the record's JSON fall back to the fields.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wellFormedLength } from "../../src/core/codepoints.js";
import { sha256Hex } from "../../src/core/hash.js";
import { materialSha256 } from "../../src/documents/material-hash.js";
import { stringLeavingRead } from "../../src/core/canonical-value.js";
import { ANY_SHAPE } from "../../src/core/parse-line.js";
import { exportDigests, exportTextLength, ExportText, textJsonOf } from "../../src/verify/export-digests.js";
import { compileCheck } from "../../src/core/schema-check.js";
import { ExportRecordSchema } from "../../src/documents/schemas.js";
import { EXPORT_RECORD_LEFT_TEXT_CHECK } from "../../src/verify/verify-stream.js";

const wellFormed = fc.string({ unit: "binary", maxLength: 60 }).filter((s) => s.isWellFormed());
/** Strings that spell the text member's opening (`,"text":"`) as a label, a key, a value or the text. */
const memberLike = fc.constantFrom("text", ',"text":"', '","text":"x', '\\","text":"');
const text = fc.oneof(wellFormed, memberLike, fc.constantFrom('say "hi"\n', "back\\slash", "tab\there\u0001", "Zürich 東京 😀", "</script>\u2028"));
const label = fc.oneof(wellFormed, memberLike);
const material = fc.record({
  id: fc.option(label, { nil: null }),
  source: fc.option(label, { nil: null }),
  metadata: fc.dictionary(label, label, { maxKeys: 3 }),
  text,
});

/** An export record in canonical key order, as ingest writes it. */
function exportRecord(m: { id: string | null; source: string | null; metadata: Record<string, string>; text: string }) {
  const metadata = Object.fromEntries(Object.entries(m.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { id: m.id, index: 7, material_sha256: "0".repeat(64), metadata, sha256: "1".repeat(64), source: m.source, text: m.text };
}

/** The digests of `record` taken from `bytes`, as verify takes them. */
const digestsFrom = (record: ReturnType<typeof exportRecord>, bytes: Buffer) => exportDigests(record, ExportText.of(record.text, textJsonOf(record, bytes)));

const readLeavingText = stringLeavingRead("text");
/** The text of `bytes` (a record's canonical bytes) as the fast reader leaves it, or null when it reads it as a string. */
function leftText(bytes: Buffer): ExportText | null {
  const read = readLeavingText(bytes, ANY_SHAPE, { maxValues: 1000, maxDepth: 10 });
  if (typeof read === "symbol") throw new Error("canonical bytes refused");
  return read.left === null ? null : ExportText.left(read.left);
}

describe("export record digests", () => {
  it("from the record's bytes equal the digests of its fields", () => {
    fc.assert(
      fc.property(material, (m) => {
        const record = exportRecord(m);
        const expected = { text: sha256Hex(record.text), material: materialSha256(record) };
        expect(digestsFrom(record, Buffer.from(JSON.stringify(record), "utf8"))).toEqual(expected);
        expect(exportDigests(record, ExportText.of(record.text, null))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("from a long text left as bytes equal the digests of its fields, and its length and string are the text's", () => {
    // Long enough to be left as bytes when written with no escape; any text, so some are not.
    const longText = fc.tuple(text, fc.string({ unit: "grapheme", minLength: 300, maxLength: 400 })).map(([a, b]) => `${b}${a}`);
    let left = 0;
    fc.assert(
      fc.property(material, longText, (m, t) => {
        const record = exportRecord({ ...m, text: t });
        const kept = leftText(Buffer.from(JSON.stringify(record), "utf8"));
        if (kept === null) return;
        left++;
        expect(kept.leftAsBytes).toBe(true);
        expect(exportDigests(record, kept)).toEqual({ text: sha256Hex(record.text), material: materialSha256(record) });
        expect(kept.length).toBe(wellFormedLength(t));
        expect(kept.string).toBe(t);
      }),
      { numRuns: 300 },
    );
    expect(left).toBeGreaterThan(50);
  });

  it("are computed from the fields when the bytes are not the record laid out with its text last", () => {
    const record = exportRecord({ id: "a", source: null, metadata: { lang: "en" }, text: "plain text" });
    const expected = { text: sha256Hex(record.text), material: materialSha256(record) };
    const { text: _text, ...withoutText } = record;
    const textFirst = { text: record.text, ...withoutText };
    expect(textJsonOf(textFirst, Buffer.from(JSON.stringify(textFirst)))).toBeNull();
    expect(textJsonOf(record, Buffer.from(`${JSON.stringify(record)} `))).toBeNull();
    expect(textJsonOf(record, Buffer.from("{}"))).toBeNull();
    expect(digestsFrom(record, Buffer.from(`${JSON.stringify(record)} `))).toEqual(expected);
  });
});

describe("export text length", () => {
  // Lone surrogates too: JSON.stringify writes them as `\ud…` escapes, which the bytes then hold.
  const anyText = fc.oneof(fc.string({ unit: "binary", maxLength: 60 }), fc.string({ unit: "grapheme", maxLength: 20 }), text);

  it("from the record's bytes equals the well-formed length of its text, or null for a lone surrogate", () => {
    fc.assert(
      fc.property(anyText, (t) => {
        const record = exportRecord({ id: "a", source: null, metadata: {}, text: t });
        const textJson = textJsonOf(record, Buffer.from(JSON.stringify(record), "utf8"));
        expect(textJson).not.toBeNull();
        expect(exportTextLength(t, textJson)).toBe(wellFormedLength(t));
        expect(exportTextLength(t, null)).toBe(wellFormedLength(t));
      }),
      { numRuns: 1000 },
    );
  });

  it("counts a character of four UTF-8 bytes once, and a lone surrogate makes the text not well-formed", () => {
    const record = (t: string) => exportRecord({ id: null, source: null, metadata: {}, text: t });
    const lengthOf = (t: string) => exportTextLength(t, textJsonOf(record(t), Buffer.from(JSON.stringify(record(t)), "utf8")));
    expect(lengthOf("a😀b")).toBe(3);
    expect(lengthOf("Zürich 東京")).toBe(9);
    expect(lengthOf("x\ud800y")).toBeNull();
  });

  it("of a text left as bytes counts code points, a character of four bytes once", () => {
    const long = (t: string) => exportRecord({ id: null, source: null, metadata: {}, text: `${"é".repeat(300)}${t}` });
    const lengthLeft = (t: string) => leftText(Buffer.from(JSON.stringify(long(t)), "utf8"))?.length;
    expect(lengthLeft("a😀b")).toBe(303);
    expect(lengthLeft("Zürich 東京")).toBe(309);
    // An escape (here a line break) is read as a string, not left.
    expect(leftText(Buffer.from(JSON.stringify(long("a\nb")), "utf8"))).toBeNull();
  });
});

describe("the schema check of an export record whose text was left as bytes", () => {
  it('holds a text to a non-empty string and nothing more, so `""` and a code point stand for it', () => {
    const text = ExportRecordSchema.shape.text;
    expect(text.def.type).toBe("string");
    expect([text.minLength, text.maxLength, text.format]).toEqual([1, null, null]);
    const whole = compileCheck(ExportRecordSchema);
    const record = exportRecord({ id: "a", source: null, metadata: { k: "v" }, text: "" });
    for (const t of ["", "a", "😀", "x".repeat(100_000), " \n"]) {
      for (const item of [record, { ...record, sha256: "not hex" }, { ...record, extra: 1 }]) {
        expect(whole.accepts({ ...item, text: t })).toBe(t.length > 0 && EXPORT_RECORD_LEFT_TEXT_CHECK.accepts({ ...item, text: "" }));
      }
    }
  });
});
