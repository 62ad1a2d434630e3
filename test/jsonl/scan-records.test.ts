// scanRecords: the strict reader handing each record to a callback instead of keeping it.
import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_READER_LIMITS, type ReaderLimits } from "../../src/documents/reader-limits.js";
import { scanRecords } from "../../src/jsonl/read.js";
import type { RawRecord } from "../../src/jsonl/record.js";
import { readRecords, fromBytes } from "../support/jsonl-reads.js";

const limits = (overrides: Partial<ReaderLimits> = {}): ReaderLimits => ({ ...DEFAULT_READER_LIMITS, ...overrides });

describe("scanRecords", () => {
  it("hands over every record in order, whatever the chunking, as readRecords returns them (property)", async () => {
    const line = fc.oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }).map((text) => JSON.stringify(text)),
      fc.record({ text: fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }), id: fc.string({ maxLength: 5 }) }).map((v) => JSON.stringify(v)),
      fc.constant(""),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { maxLength: 30 }), fc.integer({ min: 1, max: 64 }), fc.boolean(), async (lines, chunk, crlf) => {
        const input = lines.join(crlf ? "\r\n" : "\n");
        const handed: RawRecord[] = [];
        const outcome = await scanRecords(fromBytes(input, chunk), { kind: "ingest", limits: limits() }, async (record) => {
          await Promise.resolve();
          handed.push(record);
        });
        const whole = await readRecords(fromBytes(input), { kind: "ingest", limits: limits() });
        if (!outcome.ok || !whole.ok) throw new Error("expected both reads to succeed");
        expect(handed).toEqual(whole.records);
        const texts = lines.filter((l) => l !== "").map((l) => JSON.parse(l) as string | { text: string });
        expect(handed.map((record) => record.text)).toEqual(texts.map((v) => (typeof v === "string" ? v : v.text)));
        expect(handed.map((record) => record.index)).toEqual(handed.map((_, i) => i));
        expect(outcome.records).toBe(handed.length);
        expect(outcome.bytesRead).toBe(Buffer.byteLength(input));
        expect(outcome.inputSha256).toBe(createHash("sha256").update(input).digest("hex"));
      }),
      { numRuns: 100 },
    );
  });

  it("a refusal mid-input stops the read; no record at or after the refused line is handed over", async () => {
    const good = Array.from({ length: 50 }, (_, i) => JSON.stringify(`item ${i}`));
    const input = `${[...good.slice(0, 30), '{"text":"a","text":"b"}', ...good.slice(30)].join("\n")}\n`;
    let pulled = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of fromBytes(input, 16)) {
        pulled++;
        yield chunk;
      }
    }
    const handed: RawRecord[] = [];
    const outcome = await scanRecords(counted(), { kind: "screen", limits: limits(), stopOnRecordProblem: true }, (record) => {
      handed.push(record);
    });
    expect(outcome).toMatchObject({ ok: false, refusal: { code: "duplicate_key", line: 31 } });
    expect(handed.length).toBeLessThanOrEqual(30);
    expect(handed.every((record, i) => record.index === i && record.line <= 30)).toBe(true);
    // Nothing after the refused line's chunk was read.
    expect(pulled).toBeLessThan(Math.ceil(Buffer.byteLength(input) / 16));
  });

  it("a record problem refuses with stopOnRecordProblem, naming the flag; maxItems 0 is no limit", async () => {
    const big = `${JSON.stringify("ok")}\n${JSON.stringify("x".repeat(200))}\n`;
    const handed: number[] = [];
    const outcome = await scanRecords(fromBytes(big), { kind: "screen", limits: limits({ maxItemBytes: 100 }), stopOnRecordProblem: true }, (r) => {
      handed.push(r.index);
    });
    expect(outcome).toMatchObject({ ok: false, refusal: { code: "record_problem", line: 2, message: expect.stringContaining("(--max-item-bytes)") } });
    const many = Array.from({ length: 1_500 }, (_, i) => JSON.stringify(`n${i}`)).join("\n");
    let count = 0;
    const unlimited = await scanRecords(fromBytes(many), { kind: "screen", limits: limits({ maxItems: 0, maxTotalBytes: 0 }) }, () => {
      count++;
    });
    expect(unlimited).toMatchObject({ ok: true, records: 1_500 });
    expect(count).toBe(1_500);
  });

  it("an error thrown by the callback stops the read and is rethrown", async () => {
    let pulled = 0;
    async function* counted(): AsyncGenerator<Uint8Array> {
      for await (const chunk of fromBytes(Array.from({ length: 100 }, (_, i) => JSON.stringify(`n${i}`)).join("\n"), 8)) {
        pulled++;
        yield chunk;
      }
    }
    const run = scanRecords(counted(), { kind: "screen", limits: limits() }, (record) => {
      if (record.index === 3) throw new Error("consumer broke");
    });
    await expect(run).rejects.toThrow("consumer broke");
    expect(pulled).toBeLessThan(10);
  });
});
