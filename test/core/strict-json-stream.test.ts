// The strict JSON grammar fed in chunks (the streaming reader) keeps the grammar's specification
// whatever the chunk boundaries: the value JSON.parse gives for strict JSON, the refusal code the
// rules name for anything else (byte order mark first, then invalid UTF-8 anywhere, then the first
// JSON problem in document order); streamed arrays come out one element at a time, each within
// its own budget.
import { appendFile, mkdtemp, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ANY_SHAPE, SkippedValue, type GrammarOptions } from "../../src/core/parse-line.js";
import { EXPORT_SHAPE } from "../../src/core/read-document.js";
import { isUtf8 } from "node:buffer";
import { StrictStreamError, type StrictStreamEvent } from "../../src/core/parse-line.js";
import { readFileChunks, readStrictJsonFile, StrictFileError, StrictJsonStream } from "../../src/core/strict-json-stream.js";
import { sha256Hex } from "../../src/core/hash.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Feeds `bytes` in chunks of the given sizes (cycled); returns the result or the problem code. */
function streamed(bytes: Uint8Array, sizes: readonly number[] = [1], options: GrammarOptions = {}) {
  const reader = new StrictJsonStream(options);
  const events: StrictStreamEvent[] = [];
  let at = 0;
  let i = 0;
  while (at < bytes.length) {
    const size = Math.max(1, sizes[i++ % sizes.length] as number);
    events.push(...reader.write(bytes.subarray(at, at + size)));
    at += size;
  }
  try {
    const result = reader.end();
    return { ok: true as const, value: result.value, loneSurrogate: result.loneSurrogate, streamed: result.streamed, events };
  } catch (error) {
    if (error instanceof StrictStreamError) return { ok: false as const, code: error.code };
    throw error;
  }
}

/** Whether JSON.parse accepts the bytes as UTF-8 text (these have no duplicate keys to hide). */
function parses(bytes: Uint8Array): boolean {
  try {
    JSON.parse(new TextDecoder().decode(bytes));
    return true;
  } catch {
    return false;
  }
}

const sizesArb = fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 5 });

describe("the strict streaming reader", () => {
  it("gives the value JSON.parse gives for random JSON, at any chunk sizes", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), sizesArb, fc.boolean(), (value, sizes, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        const got = streamed(enc(text), sizes);
        expect(got.ok).toBe(true);
        if (got.ok) {
          expect(got.value).toEqual(JSON.parse(text));
          // JSON.stringify escapes a lone surrogate; fc.jsonValue's strings are well-formed.
          expect(got.loneSurrogate).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("mutated documents get the code the rules name, at any chunk sizes", () => {
    // Each fragment alone, with the code its rule gives (null: accepted).
    const fragments: ReadonlyArray<readonly [string, string | null]> = [
      ['{"a":1,"a":2}', "duplicate_key"],
      ['{"k":{"x":1,"\\u0078":2}}', "duplicate_key"],
      ["[1e400]", "non_finite_number"],
      ["[-1e999]", "non_finite_number"],
      ['["\\ud800"]', null],
      ['{"\\udc00":1}', null],
      ["[01]", "malformed_json"],
      ["[1.]", "malformed_json"],
      ["[.5]", "malformed_json"],
      ["[tru]", "malformed_json"],
      ["[true1]", "malformed_json"],
      ["[NaN]", "malformed_json"],
      ['["a\tb"]', "malformed_json"],
      ['["\\x"]', "malformed_json"],
      ["[1,]", "malformed_json"],
      ['{"a" 1}', "malformed_json"],
      ["\u00a0[]", "malformed_json"],
      ["[\u2028]", "malformed_json"],
      ["[\v]", "malformed_json"],
      ["[\f1]", "malformed_json"],
      ["[1] 2", "malformed_json"],
      ["", "malformed_json"],
      [" ", "malformed_json"],
      ['"x"', null],
      ["[[[[[[]]]]]]", null],
    ];
    for (const [text, code] of fragments) {
      for (let size = 1; size <= Math.max(1, enc(text).length); size++) {
        const got = streamed(enc(text), [size]);
        expect({ text, size, code: got.ok ? null : got.code }).toEqual({ text, size, code });
        if (got.ok) expect(got.value).toEqual(JSON.parse(text));
      }
    }
    // Inside a random document: accepted exactly when JSON.parse accepts the text and the rules
    // find nothing; the code is the same at every chunking (the one-chunk reading is the reference).
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.constantFrom(...fragments), fc.nat(), sizesArb, (value, [fragment], cut, sizes) => {
        const base = JSON.stringify(value);
        const at = cut % (base.length + 1);
        const text = base.slice(0, at) + fragment + base.slice(at);
        const whole = streamed(enc(text), [Math.max(1, enc(text).length)]);
        const got = streamed(enc(text), sizes);
        expect({ text, got: got.ok ? null : got.code }).toEqual({ text, got: whole.ok ? null : whole.code });
        let parsed: { value: unknown } | null = null;
        try {
          parsed = { value: JSON.parse(text) };
        } catch {
          parsed = null;
        }
        if (parsed === null) expect({ text, ok: got.ok }).toEqual({ text, ok: false });
        if (got.ok) expect(got.value).toEqual(parsed?.value);
        // Text JSON.parse accepts is refused only by a rule JSON.parse does not have.
        else if (parsed !== null) expect(["duplicate_key", "non_finite_number"]).toContain(got.code);
      }),
      { numRuns: 400 },
    );
  });

  it("random byte flips and invalid UTF-8 split across chunks get the code the rules name", () => {
    const badBytes = fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x00], [0x0b]);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), badBytes, fc.nat(), sizesArb, (value, bad, cut, sizes) => {
        const base = enc(JSON.stringify({ v: value, s: "é€😀" }));
        const at = cut % (base.length + 1);
        const bytes = Uint8Array.from([...base.subarray(0, at), ...bad, ...base.subarray(at)]);
        const got = streamed(bytes, sizes);
        const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
        // A byte order mark first, then invalid UTF-8 anywhere, then the JSON rules (a NUL or a
        // vertical tab is never JSON outside a string nor allowed raw inside one; U+FEFF later in
        // the document is a character inside a string and malformed outside one).
        const expected = bom ? "byte_order_mark" : !isUtf8(bytes) ? "invalid_utf8" : parses(bytes) ? null : "malformed_json";
        expect(got.ok ? null : got.code).toBe(expected);
      }),
      { numRuns: 400 },
    );
    // A multi-byte character split at every boundary is accepted; a truncated one is not.
    const text = enc('["é€😀"]');
    for (let size = 1; size <= text.length; size++) expect(streamed(text, [size])).toMatchObject({ ok: true, value: ["é€😀"] });
    expect(streamed(text.subarray(0, 5), [1])).toMatchObject({ ok: false, code: "invalid_utf8" });
    // A JSON problem first and invalid UTF-8 later: UTF-8 wins, as with the strict reader.
    expect(streamed(Uint8Array.from([...enc('{"a":1,"a":2,"b":"'), 0xff, ...enc('"}')]), [3])).toMatchObject({ ok: false, code: "invalid_utf8" });
    expect(streamed(Uint8Array.of(0xef, 0xbb, 0xbf, 0xff), [1])).toMatchObject({ ok: false, code: "byte_order_mark" });
  });

  it("depth cap, duplicate keys deep inside a streamed element, lone surrogates", () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(streamed(enc(deep(64)), [7])).toMatchObject({ ok: true });
    expect(streamed(enc(deep(65)), [7])).toMatchObject({ ok: false, code: "too_deep" });
    const stream = new Map([["records", ANY_SHAPE]]);
    const doc = enc('{"a":1,"records":[{"x":{"y":[{"k":1,"\\u006b":2}]}}]}');
    expect(streamed(doc, [2], { stream })).toMatchObject({ ok: false, code: "duplicate_key" });
    expect(streamed(enc('{"records":["\\udbff"]}'), [1], { stream })).toMatchObject({ ok: true, loneSurrogate: true });
    // A duplicate of the streamed key itself is refused too.
    expect(streamed(enc('{"records":[],"records":[]}'), [1], { stream })).toMatchObject({ ok: false, code: "duplicate_key" });
  });

  it("a streamed array comes out element by element; the rest is assembled", () => {
    const stream = new Map([["records", ANY_SHAPE]]);
    const doc = enc('{"a":{"b":[1]},"records":[{"i":0},[1,2],"s",null],"z":true}');
    const got = streamed(doc, [3], { stream });
    expect(got).toMatchObject({ ok: true, value: { a: { b: [1] }, z: true }, streamed: ["records"] });
    expect(got.ok && got.events).toEqual([
      { type: "array_start", key: "records", members: { a: { b: [1] } } },
      { type: "element", key: "records", index: 0, value: { i: 0 } },
      { type: "element", key: "records", index: 1, value: [1, 2] },
      { type: "element", key: "records", index: 2, value: "s" },
      { type: "element", key: "records", index: 3, value: null },
      { type: "array_end", key: "records", count: 4 },
    ]);
    // A streamed key whose value is not an array, or one nested deeper, is assembled normally.
    expect(streamed(enc('{"records":{"x":1}}'), [1], { stream })).toMatchObject({ ok: true, value: { records: { x: 1 } }, streamed: [] });
    expect(streamed(enc('{"o":{"records":[1]}}'), [1], { stream })).toMatchObject({ ok: true, value: { o: { records: [1] } }, streamed: [] });
  });

  it("each element has its own budget; one hostile element is refused", () => {
    const stream = new Map([["records", ANY_SHAPE]]);
    const many = enc(`{"records":[${Array.from({ length: 200 }, () => "[1,2,3]").join(",")}]}`);
    // 200 elements of 4 values each pass a per-element budget of 4 and a rest budget of 2.
    const budgets = { stream, element: { maxValues: 4, maxChars: 100 }, rest: { maxValues: 2, maxChars: 100 } };
    expect(streamed(many, [5], budgets)).toMatchObject({ ok: true });
    expect(streamed(enc('{"records":[[1,2,3,4]]}'), [5], budgets)).toMatchObject({ ok: false, code: "too_many_values" });
    // Characters of strings, keys and numbers count as they arrive, built or not.
    expect(streamed(enc(`{"records":["${"x".repeat(101)}"]}`), [8], budgets)).toMatchObject({ ok: false, code: "too_many_chars" });
    expect(streamed(enc(`{"records":[{"${"k".repeat(101)}":1}]}`), [8], budgets)).toMatchObject({ ok: false, code: "too_many_chars" });
    expect(streamed(enc(`{"records":[${"1".repeat(101)}]}`), [8], budgets)).toMatchObject({ ok: false, code: "too_many_chars" });
    expect(streamed(enc('{"a":[1,2]}'), [5], budgets)).toMatchObject({ ok: false, code: "too_many_values" });
  });

  it("one string, key or number longer than maxTokenBytes is refused while it is read", () => {
    for (const open of ['{"records":["', '{"records":[{"', '{"records":[1', '{"a":"\\"']) {
      const reader = new StrictJsonStream({ stream: new Map([["records", ANY_SHAPE]]), maxTokenBytes: 100 });
      reader.write(enc(open));
      for (let i = 0; i < 9; i++) reader.write(enc("1".repeat(10)));
      expect(reader.failed).toBeNull();
      reader.write(enc("1".repeat(11)));
      expect(reader.failed?.code).toBe("too_many_chars");
    }
    // At the cap it is accepted, escapes counting as written; tokens are counted one by one.
    const ok = enc(`{"records":["${"\\".repeat(50)}",${"9".repeat(100)},"${"y".repeat(100)}"]}`);
    expect(streamed(ok, [7], { stream: new Map([["records", ANY_SHAPE]]), maxTokenBytes: 100 })).toMatchObject({ ok: true });
  });

  it("a string written in more than six bytes for each character the budget has left is refused before it ends", () => {
    const budgets = { stream: new Map([["records", ANY_SHAPE]]), rest: { maxValues: 100, maxChars: 20 }, element: { maxValues: 100, maxChars: 10 } };
    // Outside the records the key `abcd` used 4 of 20 characters: 16 escapes of six bytes fit, a 17th does not.
    // In a record (the key `records` counts outside it) 10 of 10 are left.
    for (const [open, left] of [
      ['{"abcd":"', 16],
      ['{"records":["', 10],
    ] as const) {
      const reader = new StrictJsonStream(budgets);
      reader.write(enc(open));
      reader.write(enc("\\u0001".repeat(left)));
      expect(reader.failed).toBeNull();
      reader.write(enc("\\u"));
      expect(reader.failed?.code).toBe("too_many_chars");
    }
    // Escapes that are short as written fit as before: 10 characters of `\n` (20 bytes) in a record.
    expect(streamed(enc(`{"records":["${"\\n".repeat(10)}"]}`), [3], budgets)).toMatchObject({ ok: true });
    expect(streamed(enc(`{"records":["${"\\n".repeat(11)}"]}`), [3], budgets)).toMatchObject({ ok: false, code: "too_many_chars" });
  });

  it("with a shape, unused values are checked but not built (the export's shape)", () => {
    const exportShape = EXPORT_SHAPE.object?.fields?.get("records")?.array?.items;
    expect(exportShape).toBeDefined();
    const options = { shape: EXPORT_SHAPE, stream: new Map([["records", exportShape!]]) };
    const got = streamed(enc('{"x":[{},{}],"records":[{"index":0,"text":[1],"metadata":{"a":"b","c":{}}}]}'), [4], options);
    expect(got.ok).toBe(true);
    if (!got.ok) return;
    expect((got.value as { x: unknown }).x).toBeInstanceOf(SkippedValue);
    const element = got.events.find((e) => e.type === "element") as { value: { index: number; text: unknown; metadata: { a: string; c: unknown } } };
    expect(element.value.index).toBe(0);
    expect(element.value.text).toBeInstanceOf(SkippedValue);
    expect(element.value.metadata.a).toBe("b");
    expect(element.value.metadata.c).toBeInstanceOf(SkippedValue);
    expect(streamed(enc('{"x":{"a":1,"\\u0061":2}}'), [1], options)).toMatchObject({ ok: false, code: "duplicate_key" });
  });

  it("a file is read in chunks with its SHA-256; file problems are typed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-stream-"));
    const path = join(dir, "doc.json");
    const text = '{"records":[1,2,3],"z":"é"}';
    await writeFile(path, text);
    const events: unknown[] = [];
    for await (const event of readStrictJsonFile(path, { stream: new Map([["records", ANY_SHAPE]]), chunkBytes: 3 })) events.push(event);
    expect(events.at(-1)).toMatchObject({ type: "end", value: { z: "é" }, sha256: sha256Hex(text), bytes: enc(text).length });
    expect(events.filter((e) => (e as { type: string }).type === "element")).toHaveLength(3);
    // The file's read buffer is reused between reads: a character or token split across reads
    // must survive that, at every read size.
    const wide = '{"metadata":{"ключ":"é€😀"},"records":["\\u00e9x",12345,"ключ"],"text":" "}';
    await writeFile(path, wide);
    for (let chunkBytes = 1; chunkBytes <= 9; chunkBytes++) {
      const read: unknown[] = [];
      for await (const event of readStrictJsonFile(path, { stream: new Map([["records", ANY_SHAPE]]), chunkBytes })) read.push(event);
      expect(read.filter((e) => (e as { type: string }).type === "element").map((e) => (e as { value: unknown }).value)).toEqual(["\u00e9x", 12345, "ключ"]);
      expect(read.at(-1)).toMatchObject({ type: "end", value: { metadata: { ключ: "é€😀" }, text: " " } });
    }
    const drain = async (p: string) => {
      for await (const _ of readStrictJsonFile(p)) void _;
    };
    await expect(drain(join(dir, "none.json"))).rejects.toBeInstanceOf(StrictFileError);
    await expect(drain(dir)).rejects.toMatchObject({ reason: "not_a_file" });
    await writeFile(path, '{"a":1,"a":2}');
    await expect(drain(path)).rejects.toMatchObject({ code: "duplicate_key" });
  });
});

describe("a document file read in chunks holds the bytes it held when opened", () => {
  const readAll = async (path: string, between: (chunk: number) => Promise<void>): Promise<number | string> => {
    let bytes = 0;
    let chunks = 0;
    try {
      for await (const chunk of readFileChunks(path, 4)) {
        bytes += chunk.byteLength;
        await between(chunks++);
      }
      return bytes;
    } catch (error) {
      return error instanceof StrictFileError ? error.reason : String(error);
    }
  };

  it("a file left alone is read whole", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "lc-chunks-")), "doc.json");
    await writeFile(path, '{"records":[1,2,3]}');
    expect(await readAll(path, async () => undefined)).toBe(19);
  });

  it("a file appended to while it is read is refused as changed, however long the writer goes on", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "lc-chunks-")), "doc.json");
    await writeFile(path, '{"records":[1,2,3]}');
    // Every chunk read, the writer adds more than the reader took: without the size at open as the bound, no end.
    expect(await readAll(path, () => appendFile(path, "        "))).toBe("changed");
  });

  it("a file cut short while it is read is refused as changed", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "lc-chunks-")), "doc.json");
    await writeFile(path, '{"records":[1,2,3]}');
    expect(await readAll(path, (chunk) => (chunk === 0 ? truncate(path, 8) : Promise.resolve()))).toBe("changed");
  });
});
