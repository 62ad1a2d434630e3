import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { MAX_SHARDS, parseShardSpec, shardInconsistency, shardRange, validateShardSpec } from "../../src/documents/shard.js";

describe("shard ranges", () => {
  it("ranges are deterministic, contiguous and cover every line exactly once (property over line counts and N)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 300 }), (lines, n) => {
        const covered = new Array<number>(lines).fill(0);
        let next = 1;
        for (let k = 0; k < n; k++) {
          const range = shardRange({ k, n }, lines);
          expect(shardRange({ k, n }, lines)).toEqual(range);
          expect(range.first_line).toBe(next);
          // Sizes differ by at most one line.
          expect(range.lines === Math.floor(lines / n) || range.lines === Math.ceil(lines / n)).toBe(true);
          for (let line = range.first_line; line < range.first_line + range.lines; line++) covered[line - 1] = (covered[line - 1] ?? 0) + 1;
          next = range.first_line + range.lines;
        }
        expect(next).toBe(lines + 1);
        expect(covered.every((times) => times === 1)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("ranges stay exact for line counts where k * lines exceeds 2^53", () => {
    const lines = 2 ** 52 + 7;
    const n = MAX_SHARDS;
    const last = shardRange({ k: n - 1, n }, lines);
    expect(last.first_line + last.lines - 1).toBe(lines);
    const a = shardRange({ k: 41_999, n }, lines);
    const b = shardRange({ k: 42_000, n }, lines);
    expect(a.first_line + a.lines).toBe(b.first_line);
  });

  it("K/N is parsed strictly (0-based K, decimal, no sign or spaces) and the error names --shard", () => {
    expect(parseShardSpec("0/1")).toEqual({ k: 0, n: 1 });
    expect(parseShardSpec("3/4")).toEqual({ k: 3, n: 4 });
    expect(parseShardSpec(`${MAX_SHARDS - 1}/${MAX_SHARDS}`)).toEqual({ k: MAX_SHARDS - 1, n: MAX_SHARDS });
    for (const bad of [
      "4/4",
      "1/0",
      "0/0",
      "-1/3",
      "+1/3",
      "01/3",
      "1/03",
      " 1/3",
      "1/3 ",
      "1/3/5",
      "1",
      "",
      "a/b",
      "1.0/3",
      "1/1e3",
      `0/${MAX_SHARDS + 1}`,
      "1/",
    ]) {
      expect(() => parseShardSpec(bad), bad).toThrow(UsageError);
      expect(() => parseShardSpec(bad), bad).toThrow(/--shard/);
    }
    expect(() => parseShardSpec("4/4")).toThrow("--shard: K must be an integer from 0 to N-1 (3); K is 0-based, like JOB_COMPLETION_INDEX");
    expect(() => validateShardSpec({ k: 0.5, n: 2 })).toThrow(UsageError);
  });

  it("a recorded shard whose range is not the one its k, n and line count define is inconsistent", () => {
    const good = { k: 1, n: 3, first_line: 4, lines: 3, input_lines: 10, range_sha256: "0".repeat(64) };
    expect(shardRange(good, 10)).toEqual({ first_line: 4, lines: 3 });
    expect(shardInconsistency(good)).toBeNull();
    expect(shardInconsistency({ ...good, lines: 4 })).toBe("shard 1/3 of 10 lines must cover lines 4-6, not lines 4-7");
    expect(shardInconsistency({ ...good, k: 3 })).toBe("shard k 3 is not below n 3");
  });
});
