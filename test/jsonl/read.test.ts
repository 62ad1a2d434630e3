import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DEFAULT_READER_LIMITS, maxLineBytes, type ReaderKind, type ReaderLimits } from "../../src/documents/reader-limits.js";
import type { ReaderRefusal } from "../../src/jsonl/read.js";
import type { RawRecord } from "../../src/jsonl/record.js";
import { fromFile } from "../../src/jsonl/sources.js";
import { readRecords, type ReadOutcome, fromBytes } from "../support/jsonl-reads.js";

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/jsonl/${name}`, import.meta.url));

function limits(overrides: Partial<ReaderLimits> = {}): ReaderLimits {
  return { ...DEFAULT_READER_LIMITS, ...overrides };
}

async function readFixture(name: string, kind: ReaderKind = "ingest", overrides: Partial<ReaderLimits> = {}): Promise<ReadOutcome> {
  return readRecords(fromFile(fixture(name)), { kind, limits: limits(overrides) });
}

async function read(input: Uint8Array | string, kind: ReaderKind = "ingest", overrides: Partial<ReaderLimits> = {}, chunk?: number): Promise<ReadOutcome> {
  return readRecords(fromBytes(input, chunk), { kind, limits: limits(overrides) });
}

function records(outcome: ReadOutcome): RawRecord[] {
  if (!outcome.ok) throw new Error(`expected records, got refusal ${outcome.refusal.code}: ${outcome.refusal.message}`);
  return outcome.records;
}

function refused(outcome: ReadOutcome): ReaderRefusal {
  if (outcome.ok) throw new Error("expected a refusal, got records");
  return outcome.refusal;
}

describe("readRecords: valid input", () => {
  it("reads a valid 3-record file, a bare string line becoming a text-only record", async () => {
    const outcome = await readFixture("valid-3-records.jsonl");
    const [a, b, c] = records(outcome);
    expect(a).toMatchObject({ index: 0, line: 1, text: "first record MARKER_VALID_A", id: "a-1", source: "unit", problems: [] });
    expect(b).toMatchObject({ index: 1, line: 2, text: "second record as a bare string", id: undefined, problems: [] });
    expect(b?.keys).toEqual({ text: true, id: false, source: false, metadata: false });
    expect(c).toMatchObject({ index: 2, line: 3, id: null, source: null, problems: [] });
    expect(c?.keys).toEqual({ text: true, id: true, source: true, metadata: false });
  });

  it("reports the SHA-256 and size of exactly the bytes read", async () => {
    const bytes = readFileSync(fixture("crlf.jsonl"));
    const outcome = await readFixture("crlf.jsonl");
    expect(outcome).toMatchObject({
      ok: true,
      inputSha256: createHash("sha256").update(bytes).digest("hex"),
      bytesRead: bytes.length,
    });
  });

  it("ends lines at LF, drops the CR of CRLF and counts the blank line", async () => {
    const rs = records(await readFixture("crlf.jsonl"));
    expect(rs.map((r) => [r.index, r.line, r.text])).toEqual([
      [0, 1, "one"],
      [1, 2, "two"],
      [2, 4, "three"],
    ]);
  });

  it("does not end a line at a lone CR (it is JSON whitespace between tokens)", async () => {
    const rs = records(await readFixture("lone-cr.jsonl"));
    expect(rs.map((r) => [r.line, r.text, r.id])).toEqual([
      [1, "before", "after lone CR"],
      [2, "second", undefined],
    ]);
  });

  it("refuses a raw lone CR inside a string as malformed JSON on that same line", async () => {
    const refusal = refused(await read('{"text":"ok"}\n{"text":"MARKER_RAW_CR\rafter"}\n'));
    expect(refusal).toMatchObject({ code: "malformed_json", line: 2 });
    expect(refusal.message).not.toContain("MARKER");
  });

  it("skips lines blank under Python's whitespace set (incl. \\x1c-\\x1f, \\x85, U+2028, U+3000)", async () => {
    const rs = records(await readFixture("blank-odd-whitespace.jsonl"));
    expect(rs.map((r) => [r.index, r.line, r.text])).toEqual([
      [0, 4, "after blanks"],
      [1, 6, "last"],
    ]);
  });

  it("reads a last line that has no newline", async () => {
    const rs = records(await readFixture("no-final-newline.jsonl"));
    expect(rs.map((r) => [r.line, r.text])).toEqual([
      [1, "one"],
      [2, "two without newline"],
    ]);
  });

  it("reads empty input as zero records", async () => {
    expect(await read("")).toMatchObject({ ok: true, records: [], bytesRead: 0 });
  });

  it("accepts __proto__ as an ordinary key without touching any prototype", async () => {
    const rs = records(await readFixture("proto-key.jsonl"));
    const metadata = rs[0]?.metadata as Record<string, unknown>;
    expect(Object.hasOwn(metadata, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(rs[0]?.problems).toEqual([]);
    // At top level it is just an unknown key.
    expect(rs[1]?.unknownKeys).toEqual(["__proto__"]);
    expect(rs[1]?.problems.map((p) => p.code)).toEqual(["unknown_key"]);
    expect(({} as { isAdmin?: unknown }).isAdmin).toBeUndefined();
  });

  it("gives the same records whatever the chunk size", async () => {
    const input = readFileSync(fixture("blank-odd-whitespace.jsonl"));
    const whole = records(await read(input, "ingest", {}, 1 << 20));
    for (const size of [1, 2, 3, 7]) {
      expect(records(await read(input, "ingest", {}, size))).toEqual(whole);
    }
  });
});

describe("readRecords: run-level refusals (code, line, no input text)", () => {
  const cases: [string, ReaderKind, Partial<ReaderLimits>, string, number, RegExp][] = [
    ["duplicate-key-depth-3.jsonl", "ingest", {}, "duplicate_key", 2, /^line 2: duplicate key/],
    ["invalid-utf8.jsonl", "ingest", {}, "invalid_utf8", 2, /^line 2: invalid UTF-8/],
    ["bom.jsonl", "ingest", {}, "bom", 1, /^line 1: .*byte order mark/],
    ["feff-later-line.jsonl", "screen", {}, "bom", 2, /^line 2: .*byte order mark/],
    ["too-many-items.jsonl", "ingest", { maxItems: 3 }, "too_many_items", 4, /^ingest exceeds the limit of 3 records \(--max-items\)$/],
    ["too-many-items.jsonl", "screen", { maxItems: 3 }, "too_many_items", 4, /^batch exceeds the limit of 3 items \(--max-items\)$/],
    ["total-bytes.jsonl", "ingest", { maxTotalBytes: 10 }, "total_bytes", 2, /^ingest exceeds the limit of 10 total bytes \(--max-total-bytes\)$/],
    ["total-bytes.jsonl", "screen", { maxTotalBytes: 10 }, "total_bytes", 2, /^batch exceeds the limit of 10 total bytes \(--max-total-bytes\)$/],
    ["not-a-record.jsonl", "ingest", {}, "not_a_record", 2, /^line 2: record 1: must be a string or an object$/],
    ["not-a-record.jsonl", "screen", {}, "not_a_record", 2, /^line 2: item 1: must be a string or object with 'text'$/],
  ];

  it.each(cases)("%s (%s) refuses with %s", async (name, kind, overrides, code, line, message) => {
    const bytes = readFileSync(fixture(name));
    const refusal = refused(await readFixture(name, kind, overrides));
    expect(refusal.code).toBe(code);
    expect(refusal.line).toBe(line);
    expect(refusal.message).toMatch(message);
    expect(refusal.message).not.toMatch(/MARKER/);
    expect(bytes.toString("latin1")).toMatch(/MARKER|\ufeff|\xef\xbb\xbf/);
  });

  it("checks the count before the (maxItems+1)-th record, even if that line is broken", async () => {
    const refusal = refused(await read('"a"\n"b"\n{broken MARKER\n', "ingest", { maxItems: 2 }));
    expect(refusal).toMatchObject({ code: "too_many_items", line: 3 });
  });

  it("maxItems 0 and maxTotalBytes 0 mean no limit, while 1 still refuses the second record", async () => {
    const many = Array.from({ length: 1500 }, (_, i) => JSON.stringify(`record ${i}`)).join("\n");
    expect(records(await read(many, "ingest", { maxItems: 0, maxTotalBytes: 0 }))).toHaveLength(1500);
    expect(refused(await read('"a"\n"b"\n', "ingest", { maxItems: 1 }))).toMatchObject({ code: "too_many_items", line: 2 });
    expect(refused(await read('"a"\n"b"\n', "ingest", { maxTotalBytes: 1 }))).toMatchObject({ code: "total_bytes", line: 2 });
    expect(records(await read(" \n\n", "ingest", { maxItems: 0 }))).toEqual([]);
  });

  it("counts every byte of a record (malformed text, unknown keys and their values, lone surrogates as 3 bytes)", async () => {
    // [{"text":"aaaa","extra":1},{"text":5},"bbbbbbbb"] with total 10 is refused: line 1 counts
    // 4 (text) + 5 (the unknown key) + 1 (its value), line 2 counts 1 (the number's input size).
    const input = '{"text":"aaaa","extra":1}\n{"text":5}\n"bbbbbbbb"\n';
    expect(refused(await read(input, "ingest", { maxTotalBytes: 10 }))).toMatchObject({ code: "total_bytes", line: 2 });
    expect(refused(await read(input, "ingest", { maxTotalBytes: 18 }))).toMatchObject({ code: "total_bytes", line: 3 });
    const all = records(await read(input, "ingest", { maxTotalBytes: 19 }));
    expect(all.map((r) => r.bytes)).toEqual([10, 1, 8]);
    expect(refused(await read('"\\ud800\\ud800"\n', "ingest", { maxTotalBytes: 5 })).code).toBe("total_bytes");
    expect(records(await read('"\\ud800\\ud800"\n', "ingest", { maxTotalBytes: 6 }))[0]?.textBytes).toBe(6);
  });

  it("accepts 4+4 bytes with a total of 8 and refuses 3 x 4 with a total of 10", async () => {
    expect(records(await read('"aaaa"\n"bbbb"\n', "screen", { maxTotalBytes: 8 }))).toHaveLength(2);
    expect(refused(await read('"aaaa"\n"bbbb"\n"cccc"\n', "screen", { maxTotalBytes: 10 })).line).toBe(3);
  });

  it.each(["5", "null", "true", "[]", '["MARKER"]', "1.5"])("refuses the line %s as not a record", async (line) => {
    const refusal = refused(await read(`"ok"\n${line}\n`));
    expect(refusal).toMatchObject({ code: "not_a_record", line: 2 });
  });

  it.each([
    ['{"text":"a","text":"MARKER"}', "duplicate_key"],
    ['{"text":"a","metadata":{"k":"v","\\u006b":"MARKER"}}', "duplicate_key"],
    ['{"text":"a","x":[{"k":1,"k":1}]}', "duplicate_key"],
    ['{"text":"MARKER","n":1e400}', "non_finite_number"],
    ['{"text":"MARKER","n":NaN}', "malformed_json"],
    ['{"text":"MARKER",}', "malformed_json"],
    ["[".repeat(100000), "too_deep"],
    ['{"text":"MARKER"} trailing', "malformed_json"],
  ])("refuses %s with %s on its line", async (line, code) => {
    const refusal = refused(await read(`"first"\n\n${line}\n"after"\n`));
    expect(refusal).toMatchObject({ code, line: 3 });
    expect(refusal.message).toMatch(/^line 3: /);
    expect(refusal.message).not.toContain("MARKER");
  });

  it("refuses invalid UTF-8 even when a multi-byte sequence is cut at the end of the input", async () => {
    const bytes = Buffer.concat([Buffer.from('"ok"\n"caf'), Buffer.from([0xc3])]);
    expect(refused(await read(bytes))).toMatchObject({ code: "invalid_utf8", line: 2 });
    // Overlong encodings and encoded surrogates are invalid too.
    expect(refused(await read(Buffer.from([0x22, 0xc0, 0xaf, 0x22]))).code).toBe("invalid_utf8");
    expect(refused(await read(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).code).toBe("invalid_utf8");
  });

  it("decodes a multi-byte character split across chunks", async () => {
    const rs = records(await read('"caf\u00e9 \u{1f600}"\n', "screen", {}, 1));
    expect(rs[0]?.text).toBe("caf\u00e9 \u{1f600}");
  });
});

describe("readRecords: per-line cap", () => {
  /** A line whose raw size (terminator included) is exactly `size` bytes. */
  function lineOfSize(size: number, terminator = "\n"): string {
    const overhead = '{"text":""}'.length + terminator.length;
    return `{"text":"${"x".repeat(size - overhead)}"}${terminator}`;
  }

  it.each(["screen", "ingest"] as const)("(%s) reads a line of exactly the cap and refuses one byte more", async (kind) => {
    const small = { maxItemBytes: 100_000, maxMetadataKeys: 0 };
    const cap = maxLineBytes(limits(small));
    const exact = await read(`"a"\n${lineOfSize(cap)}`, kind, small, 4096);
    // Read, then held per record: unescaped, a cap-sized text is over the item budget.
    expect(records(exact)[1]?.problems.map((p) => p.code)).toEqual(["text_too_large"]);
    const over = refused(await read(`"a"\n${lineOfSize(cap + 1)}"never read MARKER"\n`, kind, small, 4096));
    const flags = "--max-item-bytes, --max-metadata-keys and --max-metadata-value-chars";
    expect(over).toMatchObject({ code: "line_too_long", line: 2, message: `line 2: exceeds ${cap} bytes (per-line cap, set by ${flags})` });
  });

  it("counts the CRLF terminator in the cap, and accepts a cap-sized last line without newline", async () => {
    const small = { maxItemBytes: 10, maxMetadataKeys: 0 };
    const cap = maxLineBytes(limits(small));
    expect(records(await read(lineOfSize(cap, "\r\n"), "screen", small))).toHaveLength(1);
    expect(refused(await read(lineOfSize(cap + 1, "\r\n"), "screen", small)).code).toBe("line_too_long");
    expect(records(await read(lineOfSize(cap + 1, "\n").trimEnd(), "screen", small))).toHaveLength(1);
  });

  it("refuses an over-cap line before reading the rest of the input", async () => {
    const small = { maxItemBytes: 10, maxMetadataKeys: 0 };
    const cap = maxLineBytes(limits(small));
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      const chunk = new Uint8Array(1024).fill(0x61);
      for (;;) {
        pulled++;
        yield chunk;
      }
    }
    const refusal = refused(await readRecords(endless(), { kind: "screen", limits: limits(small) }));
    expect(refusal).toMatchObject({ code: "line_too_long", line: 1 });
    expect(pulled).toBe(Math.floor(cap / 1024) + 1);
  });
});

describe("readRecords: record-level problems", () => {
  const problemCodes = (outcome: ReadOutcome): string[][] => records(outcome).map((r) => r.problems.map((p) => p.code));

  it("reports an escaped lone surrogate in text as a malformed-record problem, not a refusal", async () => {
    const rs = records(await readFixture("lone-surrogate.jsonl"));
    expect(rs[1]?.problems).toEqual([
      {
        code: "lone_surrogate",
        path: ["text"],
        message: "item 1: 'text' is not valid Unicode (lone surrogate)",
        detail: "'text' is not valid Unicode (lone surrogate)",
        severity: "malformed",
      },
    ]);
  });

  it("reports a non-string label and a label over 256 code points (astral counted once)", async () => {
    expect(records(await readFixture("label-not-string.jsonl"))[1]?.problems).toEqual([
      { code: "label_invalid", path: ["id"], message: "item 1: 'id' must be a string", detail: "'id' must be a string", severity: "malformed" },
    ]);
    expect(records(await readFixture("label-too-long.jsonl"))[0]?.problems).toEqual([
      {
        code: "label_too_long",
        path: ["source"],
        message: "item 0: 'source' exceeds 256 characters",
        detail: "'source' exceeds 256 characters",
        severity: "malformed",
      },
    ]);
    const ok = "\u{1f600}".repeat(256);
    expect(problemCodes(await read(JSON.stringify({ text: "t", id: ok, source: ok })))).toEqual([[]]);
  });

  it("reports unknown keys for both kinds; screen accepts metadata like ingest", async () => {
    const rs = records(await readFixture("unknown-key.jsonl"));
    expect(rs[0]?.unknownKeys).toEqual(["MARKER_UNKNOWN_KEY"]);
    expect(rs[0]?.problems).toHaveLength(1);
    expect(rs[0]?.problems[0]?.message).toBe("record 0: unknown_keys (allowed: text, id, source, metadata)");
    const screen = records(await read('{"text":"t","metadata":{"k":"v"}}', "screen"));
    expect(screen[0]?.unknownKeys).toEqual([]);
    expect(screen[0]?.problems).toEqual([]);
    expect(screen[0]?.metadata).toEqual({ k: "v" });
    const unknown = records(await read('{"text":"t","Text":"x"}', "screen"));
    expect(unknown[0]?.problems[0]?.message).toBe("item 0: unknown_keys (allowed: text, id, source, metadata)");
    expect(problemCodes(await read('{"text":"t","Text":"x"}'))).toEqual([["unknown_key"]]);
  });

  it.each([
    ['{"id":"x"}', "text_invalid"],
    ['{"text":""}', "text_invalid"],
    ['{"text":5}', "text_invalid"],
    ['""', "text_invalid"],
    ['{"text":"t","id":"\\udfff"}', "lone_surrogate"],
    ['{"text":"t","source":["s"]}', "label_invalid"],
    ['{"text":"t","metadata":["a"]}', "metadata_invalid"],
    ['{"text":"t","metadata":null}', "metadata_invalid"],
    ['{"text":"t","metadata":{"":"v"}}', "metadata_key_invalid"],
    [`{"text":"t","metadata":{"${"k".repeat(129)}":"v"}}`, "metadata_key_invalid"],
    ['{"text":"t","metadata":{"\\ud800":"v"}}', "lone_surrogate"],
    ['{"text":"t","metadata":{"k":5}}', "metadata_value_invalid"],
    ['{"text":"t","metadata":{"k":null}}', "metadata_value_invalid"],
    ['{"text":"t","metadata":{"k":{}}}', "metadata_value_invalid"],
    ['{"text":"t","metadata":{"k":true}}', "metadata_value_invalid"],
    [`{"text":"t","metadata":{"k":"${"v".repeat(1025)}"}}`, "metadata_value_too_long"],
    ['{"text":"t","metadata":{"k":"\\udbff"}}', "lone_surrogate"],
  ])("reports %s as %s and goes on to the next record", async (line, code) => {
    const outcome = await read(`${line}\n{"text":"next"}\n`);
    expect(problemCodes(outcome)).toEqual([[code], []]);
    expect(records(outcome)[0]?.problems[0]?.severity).toBe("malformed");
  });

  it("reports more than maxMetadataKeys keys, and accepts exactly the limits", async () => {
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    expect(problemCodes(await read(JSON.stringify({ text: "t", metadata: many })))).toEqual([["metadata_too_many_keys"]]);
    const full = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [i === 0 ? "k".repeat(128) : `k${i}`, i === 1 ? "v".repeat(1024) : ""]));
    expect(problemCodes(await read(JSON.stringify({ text: "t", metadata: full })))).toEqual([[]]);
    expect(problemCodes(await read('{"text":"t","metadata":{"k":"v"}}', "ingest", { maxMetadataKeys: 0 }))).toEqual([["metadata_too_many_keys"]]);
  });

  it("reports text over maxItemBytes as a budget problem, in UTF-8 bytes", async () => {
    const rs = records(await read(`"${"\u00e9".repeat(6)}"\n"${"\u00e9".repeat(5)}"\n`, "screen", { maxItemBytes: 10 }));
    expect(rs[0]?.problems).toEqual([
      { code: "text_too_large", path: ["text"], message: "item 0: 'text' exceeds 10 bytes", detail: "'text' exceeds 10 bytes", severity: "budget" },
    ]);
    expect(rs[1]?.problems).toEqual([]);
    const ingest = records(await read(`"${"x".repeat(20)}"`, "ingest", { maxItemBytes: 10 }));
    expect(ingest[0]?.problems[0]?.message).toBe("record 0: text exceeds 10 bytes");
  });

  it("never puts input text (keys or values) into problem messages or paths", async () => {
    const rs = records(
      await read(
        [
          '{"text":"MARKER_A","MARKER_B":1}',
          '{"text":"MARKER_C","id":"\\ud800MARKER_D"}',
          '{"text":"MARKER_E","metadata":{"MARKER_F":5}}',
          `{"text":"MARKER_G","metadata":{"MARKER_H":"${"v".repeat(1025)}"}}`,
        ].join("\n"),
      ),
    );
    const shown = JSON.stringify(rs.map((r) => r.problems));
    expect(rs.every((r) => r.problems.length > 0)).toBe(true);
    expect(shown).not.toContain("MARKER");
  });
});

describe("readRecords: caller errors", () => {
  it("throws a usage error for invalid limits before reading anything", async () => {
    let pulled = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      pulled = true;
      yield new Uint8Array();
    }
    await expect(readRecords(source(), { kind: "screen", limits: limits({ maxItems: -1 }) })).rejects.toThrow("--max-items must be a non-negative integer");
    expect(pulled).toBe(false);
  });

  it("throws a usage error when the source yields text instead of bytes", async () => {
    async function* text(): AsyncGenerator<string> {
      yield '"a"\n';
    }
    const source = text() as unknown as AsyncIterable<Uint8Array>;
    await expect(readRecords(source, { kind: "screen", limits: limits() })).rejects.toThrow(/must yield bytes/);
  });
});
