// The splitter bench:scale's bare parse uses (bench/_json-elements.ts): whatever the chunking,
// the elements it yields are the top-level arrays' elements byte for byte, and the rest is the
// document with those arrays emptied, including strings that hold quotes, backslashes, brackets
// and non-ASCII characters split across chunks.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonElementSplitter } from "../../bench/_json-elements.js";

function split(bytes: Buffer, cuts: readonly number[]): { elements: string[]; shell: string } {
  const splitter = new JsonElementSplitter();
  const elements: string[] = [];
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (bytes.length + 1)).sort((a, b) => a - b), bytes.length]) {
    for (const element of splitter.push(bytes.subarray(at, cut))) elements.push(element.toString("utf8"));
    at = cut;
  }
  return { elements, shell: splitter.end().toString("utf8") };
}

const tricky = fc.oneof(fc.string(), fc.constantFrom('"', "\\", '\\"', "}]", "{[", '","', "é東\u2028", "\\u0000"));
const value = fc.letrec((tie) => ({
  leaf: fc.oneof(tricky, fc.integer(), fc.boolean(), fc.constant(null)),
  node: fc.oneof({ maxDepth: 3 }, tie("leaf"), fc.array(tie("node"), { maxLength: 3 }), fc.dictionary(tricky, tie("node"), { maxKeys: 3 })),
})).node;
const entry = fc.dictionary(tricky, value, { maxKeys: 4 });

describe("bench JsonElementSplitter", () => {
  it("yields each record entry byte for byte and the document with its records emptied, for any chunking", () => {
    fc.assert(
      fc.property(entry, fc.array(entry, { maxLength: 6 }), entry, fc.array(fc.nat(), { maxLength: 8 }), (head, records, tail, cuts) => {
        const document = { head, records, tail };
        const { elements, shell } = split(Buffer.from(JSON.stringify(document)), cuts);
        expect(elements).toEqual(records.map((r) => JSON.stringify(r)));
        expect(JSON.parse(shell)).toEqual({ head, records: [], tail });
      }),
    );
  });

  it("one byte at a time splits a manifest-like document as whole chunks do", () => {
    const text = JSON.stringify({ counts: { a: 1 }, records: [{ id: 'x"}', s: [{ k: "\\" }] }, { id: "é" }], run: { status: "complete" } });
    const bytes = Buffer.from(text);
    const everyByte = Array.from({ length: bytes.length }, (_, i) => i);
    expect(split(bytes, everyByte)).toEqual(split(bytes, []));
    expect(split(bytes, []).elements).toEqual(['{"id":"x\\"}","s":[{"k":"\\\\"}]}', '{"id":"é"}']);
  });
});
