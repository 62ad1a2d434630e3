import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_READER_LIMITS, type ReaderKind, type ReaderLimits } from "../../src/documents/reader-limits.js";
import { isBlankText, utf8ByteLength } from "../../src/core/codepoints.js";
import { readRecords, type ReadOutcome, fromBytes } from "../support/jsonl-reads.js";

const REFUSAL_CODES = [
  "line_too_long",
  "invalid_utf8",
  "bom",
  "too_many_items",
  "malformed_json",
  "duplicate_key",
  "too_deep",
  "non_finite_number",
  "not_a_record",
  "total_bytes",
];

const smallLimits: ReaderLimits = { ...DEFAULT_READER_LIMITS, maxItems: 20, maxItemBytes: 64, maxTotalBytes: 400 };

/** Byte fragments that make JSONL-like noise: structure, escapes, CR/LF, BOM and invalid bytes. */
const fragment = fc.oneof(
  {
    weight: 30,
    arbitrary: fc
      .constantFrom(
        "{",
        "}",
        "[",
        "]",
        ",",
        ":",
        " ",
        "\n",
        "\r",
        "\r\n",
        '"',
        '"text"',
        '"id"',
        '"source"',
        '"metadata"',
        '"text":"a"',
        '"\\u0061"',
        '"\\ud800"',
        '"\\ud83d\\ude00"',
        "1",
        "-0.5e2",
        "1e400",
        "null",
        "true",
        "NaN",
        "\u00e9",
        "\u{1f600}",
        "\u2028",
        "\u3000",
        "\u0085",
        "\ufeff",
        "\\",
        "__proto__",
        '{"text":"a"}\n',
        '"plain"\n',
        '{"text":"b","id":null,"source":"s"}\n',
        '{"text":"c","metadata":{"k":"v"}}\n',
      )
      .map((s) => Buffer.from(s)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom([0xff], [0xc3], [0xed, 0xa0, 0x80], [0xef, 0xbb, 0xbf], [0x00], [0x1c]).map((b) => Buffer.from(b)),
  },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 4 }).map((b) => Buffer.from(b)) },
);
const fragmentSoup = fc.array(fragment, { maxLength: 60 }).map((parts) => Buffer.concat(parts));
/** Mostly whole lines, some valid and some broken, so accepted inputs are common too. */
const wholeLine = fc
  .constantFrom(
    '{"text":"a"}',
    '"plain"',
    '{"text":"b","id":null,"source":"s"}',
    '{"text":"c","metadata":{"k":"v"}}',
    '{"text":"d","x":{"y":[1,{"z":null}]}}',
    '{"text":"e","metadata":{"k":5}}',
    '{"a":1,"\\u0061":2}',
    "",
    " \t",
    "\u3000",
    '{"text":"\\ud800"}',
    "7",
  )
  .map((s) => Buffer.from(s));
const lineSoup = fc
  .array(fc.oneof({ weight: 4, arbitrary: wholeLine }, { weight: 1, arbitrary: fc.array(fragment, { maxLength: 6 }).map((p) => Buffer.concat(p)) }), {
    maxLength: 10,
  })
  .chain((lines) => fc.constantFrom("\n", "\r\n").map((end) => Buffer.from(lines.map((l) => l.toString("latin1")).join(end), "latin1")));
const noisyInput = fc.oneof(fragmentSoup, lineSoup);
const kind = fc.constantFrom<ReaderKind>("screen", "ingest");
const chunkSize = fc.integer({ min: 1, max: 64 });

function read(bytes: Uint8Array, k: ReaderKind, chunk: number, limits = smallLimits): Promise<ReadOutcome> {
  return readRecords(fromBytes(bytes, chunk), { kind: k, limits });
}

/** An independent, obviously-correct split: LF ends a line, one CR before it is dropped. */
function oracleLines(bytes: Buffer): { line: number; text: string | null }[] {
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a) {
      parts.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < bytes.length) parts.push(bytes.subarray(start));
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  return parts.map((raw, i) => {
    const body = raw.length > 0 && raw[raw.length - 1] === 0x0d ? raw.subarray(0, -1) : raw;
    try {
      return { line: i + 1, text: decoder.decode(body) };
    } catch {
      return { line: i + 1, text: null };
    }
  });
}

const PY_WHITESPACE = /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

describe("readRecords properties", () => {
  it("for any bytes, resolves to records or a coded refusal, never throws, whatever the chunking", async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(noisyInput, fc.uint8Array({ maxLength: 300 })), kind, chunkSize, async (bytes, k, chunk) => {
        const outcome = await read(bytes, k, chunk);
        if (!outcome.ok) {
          expect(REFUSAL_CODES).toContain(outcome.refusal.code);
          expect(outcome.refusal.message.length).toBeGreaterThan(0);
        }
        // Chunk boundaries never change the result.
        expect(await read(bytes, k, 4096)).toStrictEqual(outcome);
      }),
      { numRuns: 600 },
    );
  });

  it("accepted input holds exactly what JSON.parse gives for each non-blank line", async () => {
    await fc.assert(
      fc.asyncProperty(noisyInput, kind, async (bytes, k) => {
        const outcome = await read(bytes, k, 7);
        const lines = oracleLines(Buffer.from(bytes));
        if (!outcome.ok) {
          const { code, line } = outcome.refusal;
          const culprit = lines.find((l) => l.line === line);
          if (code === "invalid_utf8") expect(culprit?.text).toBeNull();
          if (code === "malformed_json") expect(() => JSON.parse(culprit?.text ?? "")).toThrow();
          return;
        }
        const nonBlank = lines.filter((l) => l.text === null || !PY_WHITESPACE.test(l.text));
        expect(outcome.records.map((r) => r.line)).toStrictEqual(nonBlank.map((l) => l.line));
        outcome.records.forEach((record, i) => {
          expect(record.index).toBe(i);
          const value: unknown = JSON.parse(nonBlank[i]?.text ?? "");
          if (typeof value === "string") {
            expect(record.text).toBe(value);
            return;
          }
          const object = value as Record<string, unknown>;
          expect(record.text).toStrictEqual(object.text);
          expect(record.id).toStrictEqual(object.id);
          expect(record.source).toStrictEqual(object.source);
          const allowed = ["text", "id", "source", "metadata"];
          expect(record.unknownKeys).toStrictEqual(Object.keys(object).filter((key) => !allowed.includes(key)));
        });
      }),
      { numRuns: 600 },
    );
  });

  it("reads generated valid JSONL (any terminators and blank lines) back field by field", async () => {
    const label = fc.option(fc.string({ unit: "binary", maxLength: 20 }), { nil: null });
    const item = fc.record(
      {
        // Valid records only: a whitespace-only text is refused like an empty one.
        text: fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).filter((t) => !isBlankText(t)),
        id: label,
        source: label,
        metadata: fc.dictionary(fc.string({ unit: "binary", minLength: 1, maxLength: 10 }), fc.string({ unit: "binary", maxLength: 20 }), {
          maxKeys: 4,
          noNullPrototype: true,
        }),
      },
      { requiredKeys: ["text"] },
    );
    const line = fc.tuple(
      fc.oneof(
        item,
        fc.string({ unit: "binary", minLength: 1, maxLength: 30 }).filter((t) => !isBlankText(t)),
      ),
      fc.constantFrom("\n", "\r\n"),
      fc.constantFrom("", "\n", " \t\r\n", "\u3000\u2028\n"),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 15 }), chunkSize, async (lines, chunk) => {
        const text = lines.map(([value, end, blank]) => JSON.stringify(value) + end + blank).join("");
        const outcome = await read(Buffer.from(text), "ingest", chunk, DEFAULT_READER_LIMITS);
        expect(outcome.ok).toBe(true);
        if (!outcome.ok) return;
        expect(outcome.records).toHaveLength(lines.length);
        outcome.records.forEach((record, i) => {
          const value = lines[i]?.[0];
          expect(record.problems).toStrictEqual([]);
          if (typeof value === "string") expect(record.text).toBe(value);
          else {
            expect(record.text).toBe(value?.text);
            expect(record.id).toStrictEqual(value?.id);
            expect(record.source).toStrictEqual(value?.source);
            expect(record.metadata).toStrictEqual(value?.metadata);
          }
        });
      }),
      { numRuns: 300 },
    );
  });

  it("refuses generated deep nesting inside a record without overflowing the stack", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 65, max: 50_000 }), kind, async (depth, k) => {
        const line = `{"text":"t","x":${"[".repeat(depth)}${"]".repeat(depth)}}\n`;
        const outcome = await read(Buffer.from(line), k, 65536, DEFAULT_READER_LIMITS);
        expect(outcome.ok ? "ok" : outcome.refusal.code).toBe("too_deep");
      }),
      { numRuns: 25 },
    );
  });
});

describe("text byte size", () => {
  it("counts the UTF-8 bytes of each unit, a lone surrogate as 3 bytes", () => {
    const unit = fc.oneof(
      fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
      fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u)),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        const perUnit = [...text].reduce(
          (n, c) => n + ((c.codePointAt(0) as number) >= 0xd800 && (c.codePointAt(0) as number) <= 0xdfff ? 3 : Buffer.byteLength(c)),
          0,
        );
        expect(utf8ByteLength(text)).toBe(perUnit);
      }),
      { numRuns: 2000 },
    );
  });
});
