// An export record's digests taken from its canonical bytes equal those computed from its fields,
// for any text (escapes, control characters, astral characters), labels and metadata; and bytes
// that are not laid out as the record's JSON fall back to the fields.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hash.js";
import { materialSha256 } from "../../src/documents/material-hash.js";
import { exportDigests } from "../../src/verify/export-digests.js";

const wellFormed = fc.string({ unit: "binary", maxLength: 60 }).filter((s) => s.isWellFormed());
const text = fc.oneof(wellFormed, fc.constantFrom('say "hi"\n', "back\\slash", "tab\there\u0001", "Zürich 東京 😀", "</script>\u2028"));
const material = fc.record({
  id: fc.option(wellFormed, { nil: null }),
  source: fc.option(wellFormed, { nil: null }),
  metadata: fc.dictionary(wellFormed, wellFormed, { maxKeys: 3 }),
  text,
});

/** An export record in canonical key order, as ingest writes it. */
function exportRecord(m: { id: string | null; source: string | null; metadata: Record<string, string>; text: string }) {
  const metadata = Object.fromEntries(Object.entries(m.metadata).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { id: m.id, index: 7, material_sha256: "0".repeat(64), metadata, sha256: "1".repeat(64), source: m.source, text: m.text };
}

describe("export record digests", () => {
  it("from the record's bytes equal the digests of its fields", () => {
    fc.assert(
      fc.property(material, (m) => {
        const record = exportRecord(m);
        const expected = { text: sha256Hex(record.text), material: materialSha256(record) };
        expect(exportDigests(record, record, Buffer.from(JSON.stringify(record), "utf8"))).toEqual(expected);
        expect(exportDigests(record, record, undefined)).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it("are computed from the fields when the bytes are not the record laid out with its text last", () => {
    const record = exportRecord({ id: "a", source: null, metadata: { lang: "en" }, text: "plain text" });
    const expected = { text: sha256Hex(record.text), material: materialSha256(record) };
    const { text: _text, ...withoutText } = record;
    const textFirst = { text: record.text, ...withoutText };
    expect(exportDigests(textFirst, record, Buffer.from(JSON.stringify(textFirst)))).toEqual(expected);
    expect(exportDigests(record, record, Buffer.from(`${JSON.stringify(record)} `))).toEqual(expected);
    expect(exportDigests(record, record, Buffer.from("{}"))).toEqual(expected);
  });
});
