import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { shardRange } from "../../src/documents/shard.js";
import { countInputLines, InputChangedError, selectLineRange } from "../../src/jsonl/line-range.js";
import { fromBytes } from "../support/jsonl-reads.js";

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

/** The physical lines of `text` with their terminators, as the reader splits them. */
function physicalLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

describe("line ranges of a sharded read", () => {
  it("the shards' bytes are exactly their lines, and together the whole input once, for any chunking", async () => {
    const line = fc.oneof(
      fc.constant(""),
      fc.constant("   "),
      fc.constant('{"text":"a"}'),
      fc.string({ maxLength: 12 }).map((s) => s.replaceAll("\n", "")),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 9 }),
        async (lines, trailing, n, chunk) => {
          const text = lines.join("\n") + (trailing && lines.length > 0 ? "\n" : "");
          const bytes = Buffer.from(text, "utf8");
          const counted = await countInputLines(fromBytes(bytes, chunk));
          const expectedLines = physicalLines(text);
          expect(counted.lines).toBe(expectedLines.length);
          const parts: Buffer[] = [];
          for (let k = 0; k < n; k++) {
            const range = shardRange({ k, n }, counted.lines);
            const got = await collect(selectLineRange(fromBytes(bytes, chunk), range, counted, "in.jsonl"));
            expect(got.toString("utf8")).toBe(expectedLines.slice(range.first_line - 1, range.first_line - 1 + range.lines).join(""));
            parts.push(got);
          }
          expect(Buffer.concat(parts).equals(bytes)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("an input that changed between the count and the read is refused when the read ends", async () => {
    const before = Buffer.from('"a"\n"b"\n"c"\n');
    const counted = await countInputLines(fromBytes(before));
    expect(counted).toMatchObject({ lines: 3, bytes: before.byteLength });
    const range = shardRange({ k: 0, n: 3 }, 3);
    // Same line count and size, other bytes.
    await expect(collect(selectLineRange(fromBytes(Buffer.from('"a"\n"x"\n"c"\n')), range, counted, "in.jsonl"))).rejects.toThrow(InputChangedError);
    // One more line.
    await expect(collect(selectLineRange(fromBytes(Buffer.from('"a"\n"b"\n"c"\n"d"\n')), range, counted, "in.jsonl"))).rejects.toThrow(
      "the input in.jsonl changed while it was read",
    );
    await expect(collect(selectLineRange(fromBytes(before), range, counted, "in.jsonl"))).resolves.toEqual(Buffer.from('"a"\n'));
  });
});
