// The fast canonical check (core/canonical-value.ts) and the fast document reader built on it
// (core/canonical-json-file.ts) never accept what the strict grammar would read differently:
// whatever they accept, the strict grammar reads to the same value and the canonical serializer
// writes back byte for byte; and they accept the canonical bytes of ordinary documents.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { NotCanonicalLayout, readCanonicalJsonFile } from "../../src/core/canonical-json-file.js";
import { canonicalValue, NOT_CANONICAL, stringLeavingRead } from "../../src/core/canonical-value.js";
import { codePointLength, utf8CodePointsOutsideControls } from "../../src/core/codepoints.js";
import { ANY_SHAPE, parseJsonBytes, STRING_MAP_SHAPE } from "../../src/core/parse-line.js";
import { readStrictJsonFile } from "../../src/core/strict-json-stream.js";

const LIMITS = { maxValues: 1_000_000, maxDepth: 30 };
const bytes = (text: string): Buffer => Buffer.from(text, "utf8");

/** Texts near canonical JSON: canonical ones, other serializations, and small edits of both. */
const nearJson: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.jsonValue().map((v) => {
    try {
      return canonicalJsonUnchecked(v);
    } catch {
      return "null";
    }
  }),
  fc.json(),
  fc
    .tuple(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc.nat(),
      fc.constantFrom(" ", '"', "\\", "\\ud800", "\\u0041", "-0", "1e400", "9007199254740993", ",", '"a":1,', "\u{1f600}", "}", "0.0"),
    )
    .map(([text, at, insert]) => `${text.slice(0, at % (text.length + 1))}${insert}${text.slice(at % (text.length + 1))}`),
  fc.constantFrom(
    '{"a":1,"a":1}',
    '{"b":1,"a":2}',
    '{"__proto__":1}',
    '{"10":1,"9":2}',
    '"\\ud800"',
    '"\\ud83d\\ude00"',
    "-0",
    "1.0",
    '{"a":{"a":[{"x":1,"x":2}]}}',
  ),
);

/** What canonicalValue decides by serializing the parsed value whole: the decision its shortcut must equal. */
function wholeComparisonAccepts(text: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  // Every key in code-unit order in Object.keys order, and every string and key well-formed.
  const sound = (node: unknown): boolean => {
    if (typeof node === "string") return node.isWellFormed();
    if (node === null || typeof node !== "object") return true;
    if (Array.isArray(node)) return node.every(sound);
    const keys = Object.keys(node);
    return keys.every((k, i) => k.isWellFormed() && (i === 0 || (keys[i - 1] as string) < k) && sound((node as Record<string, unknown>)[k]));
  };
  return text.isWellFormed() && sound(parsed) && JSON.stringify(parsed) === text;
}

describe("canonicalValue", () => {
  it("accepts only texts the strict grammar reads to the same value and the canonical serializer writes back", () => {
    fc.assert(
      fc.property(nearJson, (text) => {
        const value = canonicalValue(bytes(text), ANY_SHAPE, LIMITS);
        if (value === NOT_CANONICAL) return;
        const strict = parseJsonBytes(bytes(text));
        expect(strict.ok).toBe(true);
        if (strict.ok) expect(value).toEqual(strict.value);
        expect(canonicalJsonUnchecked(value)).toBe(text);
      }),
      { numRuns: 3000 },
    );
  });

  it("accepts the canonical bytes of values without integer-like keys or lone surrogates", () => {
    const key = fc.string().filter((k) => !/^(0|[1-9][0-9]*)$/.test(k) && k.isWellFormed());
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.string().filter((s) => s.isWellFormed()),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.boolean(),
        fc.constant(null),
        tie("array"),
        tie("object"),
      ),
      array: fc.array(tie("node"), { maxLength: 4 }),
      object: fc.dictionary(key, tie("node"), { maxKeys: 4 }),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        const text = canonicalJsonUnchecked(v);
        expect(canonicalValue(bytes(text), ANY_SHAPE, LIMITS)).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
  });

  it("compares a long last string without serializing it again, and still refuses any edit of it or before it", () => {
    // An export record's shape: short members, then a long text last (the part compared apart).
    const long = fc.oneof(
      fc.string({ unit: "binary", minLength: 256, maxLength: 600 }).filter((s) => s.isWellFormed()),
      // Texts that need escapes: newlines, quotes, backslashes, every kind of control character.
      fc.string({
        unit: fc.constantFrom("a", " ", "é", "\u{1f600}", "\n", "\t", '"', "\\", "/", "\u0000", "\u0008", "\u000b", "\u001f", "\u007f"),
        minLength: 256,
        maxLength: 600,
      }),
    );
    const record = fc.record({
      id: fc.oneof(fc.string(), fc.constant(null)),
      index: fc.nat(),
      metadata: fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
      text: long,
    });
    const edited = fc
      .tuple(
        record.map((r) => JSON.stringify(r)),
        fc.nat(),
        fc.constantFrom(
          "",
          " ",
          '"',
          "\\",
          "\\n",
          "\\u0041",
          "\\ud800",
          "\n",
          "\u0001",
          '","text":"x',
          '"}',
          "\u{1f600}",
          '","a":"',
          "\\u001f",
          "\\u001F",
          "\\u0008",
          "\\u000a",
          "\\/",
          '\\"',
          "\\\\",
          "\\u00",
          "\\",
        ),
      )
      .map(([text, at, insert]) => `${text.slice(0, at % (text.length + 1))}${insert}${text.slice(at % (text.length + 1))}`);
    fc.assert(
      fc.property(edited, (edit) => {
        // An edit may split a surrogate pair: the bytes (and the text they are) then hold U+FFFD.
        const text = bytes(edit).toString("utf8");
        const value = canonicalValue(bytes(text), ANY_SHAPE, LIMITS);
        // Exactly what comparing the whole serialization decides, so canonical texts still pass.
        expect(value !== NOT_CANONICAL).toBe(wholeComparisonAccepts(text));
        if (value !== NOT_CANONICAL) expect(canonicalJsonUnchecked(value)).toBe(text);
      }),
      { numRuns: 3000 },
    );
    // Neighbours of a long text: an escape anywhere in it, a quote inside it, a member after it.
    const text = "x".repeat(300);
    expect(canonicalValue(bytes(`{"a":1,"text":"${text}"}`), ANY_SHAPE, LIMITS)).toEqual({ a: 1, text });
    expect(canonicalValue(bytes(`{"a":1,"text":"${text}\\u0041"}`), ANY_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes(`{"a":1,"text":"${text}\\\\"}`), ANY_SHAPE, LIMITS)).toEqual({ a: 1, text: `${text}\\` });
    expect(canonicalValue(bytes(`{"a":1,"text":"${text}\\/"}`), ANY_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes(`{"a":1,"text":"x","text":"${text}"}`), ANY_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes(`{"a":1, "text":"${text}"}`), ANY_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes(`{"a":1,"text":"${text}","z":1}`), ANY_SHAPE, LIMITS)).toEqual({ a: 1, text, z: 1 });
  });

  it("leaving a long last string as bytes decides as it does and gives the same value once the string is put back", () => {
    const readLeavingText = stringLeavingRead("text");
    // Texts written with no escape (left as bytes when long enough), and texts with escapes.
    const plain = ["a", " ", "é", "東", "\u{1f600}", "\u2028", "\u007f", "/"];
    const long = fc.oneof(
      fc.string({ unit: fc.constantFrom(...plain), minLength: 200, maxLength: 500 }),
      fc.string({ unit: fc.constantFrom(...plain, "\n", '"', "\\", "\u0000", "\u001f"), minLength: 200, maxLength: 500 }),
    );
    const record = fc.record({
      id: fc.oneof(fc.string(), fc.constant(null)),
      index: fc.nat(),
      // A metadata key or value that spells the member does not move the text.
      metadata: fc.dictionary(fc.oneof(fc.string(), fc.constant("text")), fc.oneof(fc.string(), fc.constant(',"text":"')), { maxKeys: 3 }),
      text: long,
    });
    const edited = fc
      .tuple(
        record.map((r) => JSON.stringify(r)),
        fc.nat(),
        fc.constantFrom("", " ", '"', "\\", "\n", "\u0001", '","text":"x', '"}', "}", '","a":"', ',"text":"', "\u001f", "\xff", "\u{1f600}"),
      )
      .map(([text, at, insert]) => `${text.slice(0, at % (text.length + 1))}${insert}${text.slice(at % (text.length + 1))}`);
    let left = 0;
    fc.assert(
      fc.property(
        fc.oneof(
          edited,
          record.map((r) => JSON.stringify(r)),
        ),
        (edit) => {
          const input = bytes(bytes(edit).toString("utf8"));
          const whole = canonicalValue(input, ANY_SHAPE, LIMITS);
          const read = readLeavingText(input, ANY_SHAPE, LIMITS);
          expect(read === NOT_CANONICAL).toBe(whole === NOT_CANONICAL);
          if (read === NOT_CANONICAL || whole === NOT_CANONICAL) return;
          if (read.left === null) {
            expect(read.value).toEqual(whole);
            return;
          }
          left++;
          const string = read.left.json.toString("utf8", 1, read.left.json.length - 1);
          expect(read.value).toEqual({ ...(whole as object), text: "" });
          expect({ ...(read.value as object), text: string }).toEqual(whole);
          expect(read.left.length).toBe(codePointLength(string));
        },
      ),
      { numRuns: 3000 },
    );
    expect(left).toBeGreaterThan(100);
    // Neighbours: a raw control character or a quote in the string, a member after it, a repeated key.
    const text = "x".repeat(300);
    const leave = (t: string) => readLeavingText(bytes(t), ANY_SHAPE, LIMITS);
    expect(leave(`{"a":1,"text":"${text}"}`)).toEqual({ value: { a: 1, text: "" }, left: { key: "text", json: bytes(`"${text}"`), length: 300 } });
    expect(leave(`{"a":1,"text":"${text}\u0001"}`)).toBe(NOT_CANONICAL);
    expect(leave(`{"a":1,"text":"${text}\u001f${text}"}`)).toBe(NOT_CANONICAL);
    expect(leave(`{"a":1,"text":"${text}"x"}`)).toBe(NOT_CANONICAL);
    expect(leave(`{"a":1,"text":"x","text":"${text}"}`)).toBe(NOT_CANONICAL);
    expect(leave(`{"text":"${text}","z":"${text}"}`)).toEqual({ value: { text, z: text }, left: null });
    expect(leave(`{"a":1, "text":"${text}"}`)).toBe(NOT_CANONICAL);
    expect(leave(`{"b":1,"a":2,"text":"${text}"}`)).toBe(NOT_CANONICAL);
  });
});

describe("code points of strict UTF-8 outside control characters", () => {
  it("equal the decoded text's code points at any alignment, or null with a control character", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 80 }).filter((s) => s.isWellFormed()),
        fc.nat(7),
        fc.nat(7),
        (text, before, after) => {
          const encoded = bytes(text);
          // The text inside a larger buffer, at every offset from a four-byte boundary.
          const buffer = Buffer.alloc(before + encoded.length + after, 0x61);
          encoded.copy(buffer, before);
          const expected = /[\u0000-\u001f]/.test(text) ? null : codePointLength(text);
          expect(utf8CodePointsOutsideControls(buffer, before, before + encoded.length)).toBe(expected);
          expect(utf8CodePointsOutsideControls(buffer.subarray(before), 0, encoded.length)).toBe(expected);
        },
      ),
      { numRuns: 3000 },
    );
    // A control character in every place of a word, and the bytes around 0x20 and 0x80.
    for (let at = 0; at < 12; at++) {
      const line = Buffer.from("abcdefghijkl", "latin1");
      line[at] = 0x1f;
      expect(utf8CodePointsOutsideControls(line, 0, 12)).toBeNull();
      line[at] = 0x20;
      expect(utf8CodePointsOutsideControls(line, 0, 12)).toBe(12);
    }
    expect(utf8CodePointsOutsideControls(bytes("\u007f\u0080\u07ff\uffff\u{10ffff} "), 0, bytes("\u007f\u0080\u07ff\uffff\u{10ffff} ").length)).toBe(6);
  });

  it("declines what the shape would not build whole, what exceeds the value budget, and invalid UTF-8", () => {
    expect(canonicalValue(bytes('{"a":"x","b":"y"}'), STRING_MAP_SHAPE, LIMITS)).toEqual({ a: "x", b: "y" });
    expect(canonicalValue(bytes('{"a":"x","b":1}'), STRING_MAP_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes("[1,2,3]"), ANY_SHAPE, { maxValues: 4, maxDepth: 30 })).toEqual([1, 2, 3]);
    expect(canonicalValue(bytes("[1,2,3]"), ANY_SHAPE, { maxValues: 3, maxDepth: 30 })).toBe(NOT_CANONICAL);
    expect(canonicalValue(bytes("[[[1]]]"), ANY_SHAPE, { maxValues: 10, maxDepth: 2 })).toBe(NOT_CANONICAL);
    expect(canonicalValue(Buffer.from([0x22, 0xc3, 0x28, 0x22]), ANY_SHAPE, LIMITS)).toBe(NOT_CANONICAL);
    // A backslash written out before "ud" is text, not a surrogate escape.
    expect(canonicalValue(bytes('"C:\\\\udata"'), ANY_SHAPE, LIMITS)).toBe("C:\\udata");
  });

  it("never hands JSON.parse a text that may hold more values than the budget, and still parses long texts of few values", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const limits = { maxValues: 100, maxDepth: 30 };
      const many = `[${Array(150).fill("{}").join(",")}]`;
      expect(canonicalValue(bytes(many), ANY_SHAPE, limits)).toBe(NOT_CANONICAL);
      const leaving = stringLeavingRead("text");
      expect(leaving(bytes(`{"m":[${Array(150).fill(0).join(",")}],"text":"${"x".repeat(300)}"}`), ANY_SHAPE, limits)).toBe(NOT_CANONICAL);
      expect(parse).not.toHaveBeenCalled();
      // Commas and brackets inside strings are not values: a long text of three values is parsed.
      const quoted = `["${"a,[{".repeat(100)}","\\",[{"]`;
      expect(canonicalValue(bytes(quoted), ANY_SHAPE, limits)).toEqual(["a,[{".repeat(100), '",[{']);
      expect(parse).toHaveBeenCalledTimes(1);
      // Within the budget, however long: the values are counted after the parse as before.
      expect(canonicalValue(bytes(`[${Array(99).fill(0).join(",")}]`), ANY_SHAPE, limits)).toHaveLength(99);
      expect(canonicalValue(bytes(`[${Array(100).fill(0).join(",")}]`), ANY_SHAPE, limits)).toBe(NOT_CANONICAL);
    } finally {
      parse.mockRestore();
    }
  });
});

describe("readCanonicalJsonFile", () => {
  const options = { stream: new Map([["records", ANY_SHAPE]]) };

  async function events(path: string, read: typeof readCanonicalJsonFile, chunkBytes: number): Promise<unknown[]> {
    const out: unknown[] = [];
    for await (const event of read(path, { ...options, chunkBytes })) {
      if (event.type !== "element" || event.bytes === undefined) {
        out.push(event);
        continue;
      }
      // The fast reader also gives an element's bytes, exactly the value's JSON while the event is
      // current; the rest of the event is the strict reader's.
      const { bytes, ...rest } = event;
      expect(bytes.toString("utf8")).toBe(JSON.stringify(event.value));
      out.push(rest);
    }
    return out;
  }

  it("yields what the strict reader yields for canonical documents, at any read size", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-canonical-file-"));
    const path = join(dir, "doc.json");
    const member = fc.dictionary(fc.constantFrom("a", "counts", "rz", "schema", "z"), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
    await fc.assert(
      fc.asyncProperty(member, fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 5 }), fc.integer({ min: 1, max: 97 }), async (rest, records, chunk) => {
        let text: string;
        try {
          text = canonicalJsonUnchecked({ ...rest, records });
        } catch {
          return;
        }
        await writeFile(path, text);
        let fast: unknown[] | null = null;
        try {
          fast = await events(path, readCanonicalJsonFile, chunk);
        } catch (error) {
          expect(error).toBeInstanceOf(NotCanonicalLayout);
        }
        if (fast !== null) expect(fast).toEqual(await events(path, readStrictJsonFile, chunk));
      }),
      { numRuns: 150 },
    );
  });

  it("gives up on a document that is not laid out canonically", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lc-canonical-file-"));
    const path = join(dir, "doc.json");
    for (const text of [
      '{"records":[1,2] }',
      '{"records": [1]}',
      '{"b":1,"a":2,"records":[]}',
      '{"records":[1]}x',
      '{"records":[1',
      '{"a":[1]}',
      '\ufeff{"records":[]}',
      '{"records":[01]}',
    ]) {
      await writeFile(path, text);
      await expect(events(path, readCanonicalJsonFile, 3)).rejects.toBeInstanceOf(NotCanonicalLayout);
    }
    await writeFile(path, '{"a":1,"records":[],"z":[{"b":2}]}');
    expect(await events(path, readCanonicalJsonFile, 3)).toEqual(await events(path, readStrictJsonFile, 3));
  });
});
