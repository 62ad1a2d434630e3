import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import {
  DEFAULT_READER_LIMITS,
  LINE_SLACK,
  MAX_ITEM_BYTES_CEILING,
  MAX_LABEL_CHARS,
  maxLineBytes,
  validateReaderLimits,
  type ReaderLimits,
} from "../../src/documents/reader-limits.js";

const limits = (overrides: Partial<ReaderLimits> = {}): ReaderLimits => ({ ...DEFAULT_READER_LIMITS, ...overrides });

describe("reader limits", () => {
  it("uses the documented defaults", () => {
    expect(DEFAULT_READER_LIMITS).toEqual({
      maxItems: 1000,
      maxItemBytes: 65536,
      maxTotalBytes: 8388608,
      maxMetadataKeys: 32,
      maxMetadataValueChars: 1024,
    });
    expect(MAX_ITEM_BYTES_CEILING).toBe(67108864);
  });

  it("computes one per-line cap for screen and ingest from the defaults, with room for the largest metadata", () => {
    expect(maxLineBytes(limits())).toBe(6 * 65536 + LINE_SLACK + 32 * (12 * (128 + 1024) + 8) + 16);
  });

  it("leaves room in the slack for two labels of 256 astral characters written as escapes", () => {
    const astral = "\\ud83d\\ude00".repeat(MAX_LABEL_CHARS);
    const line = `{"text":"","id":"${astral}","source":"${astral}"}\r\n`;
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LINE_SLACK);
  });

  it("accepts zero and the item-bytes ceiling itself", () => {
    expect(() => validateReaderLimits(limits({ maxItems: 0, maxTotalBytes: 0, maxMetadataKeys: 0 }))).not.toThrow();
    expect(() => validateReaderLimits(limits({ maxItemBytes: MAX_ITEM_BYTES_CEILING }))).not.toThrow();
  });

  it("refuses item bytes above the ceiling with a 'must not exceed' usage error", () => {
    expect(() => validateReaderLimits(limits({ maxItemBytes: MAX_ITEM_BYTES_CEILING + 1 }))).toThrow(UsageError);
    expect(() => validateReaderLimits(limits({ maxItemBytes: 1e30 }))).toThrow(/must not exceed/);
  });

  it.each([
    ["maxItems", -1, "--max-items must be a non-negative integer"],
    ["maxItemBytes", 1.5, "--max-item-bytes must be a non-negative integer"],
    ["maxTotalBytes", Number.NaN, "--max-total-bytes must be a non-negative integer"],
    ["maxMetadataKeys", Number.POSITIVE_INFINITY, "--max-metadata-keys must be a non-negative integer"],
    ["maxMetadataValueChars", "10", "--max-metadata-value-chars must be a non-negative integer"],
    ["maxItems", true, "--max-items must be a non-negative integer"],
  ])("refuses %s = %s naming the flag", (name, value, message) => {
    const bad = { ...limits(), [name]: value } as unknown as ReaderLimits;
    expect(() => validateReaderLimits(bad)).toThrow(message);
  });
});
