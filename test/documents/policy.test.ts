import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { IngestPolicySchema, MAX_ITEM_BYTES_CEILING, STRICT_V1, resolvePolicy } from "../../src/documents/policy.js";

const refusal = (overrides: Parameters<typeof resolvePolicy>[0]): string => {
  try {
    resolvePolicy(overrides);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error("expected resolvePolicy to refuse");
};

describe("strict/v1 policy", () => {
  it("STRICT_V1 equals policies/strict-v1.json field for field", () => {
    const file = JSON.parse(readFileSync(new URL("../../policies/strict-v1.json", import.meta.url), "utf8"));
    expect(file).toEqual({ ...STRICT_V1 });
    expect(Object.keys(file)).toEqual(Object.keys(STRICT_V1));
  });

  it("the defaults pass the schema and resolve unchanged", () => {
    expect(IngestPolicySchema.parse(STRICT_V1)).toEqual(STRICT_V1);
    expect(resolvePolicy()).toEqual(STRICT_V1);
    expect(resolvePolicy({})).toEqual(STRICT_V1);
  });

  it("applies overrides and treats undefined as absent", () => {
    const p = resolvePolicy({ segment_chars: 10, segment_overlap: 3, max_segments: undefined, stop_after_hold: false });
    expect(p).toMatchObject({ segment_chars: 10, segment_overlap: 3, max_segments: 8, stop_after_hold: false });
  });

  it("zero is legal for every limit except segment_chars", () => {
    const zeros = resolvePolicy({
      segment_overlap: 0,
      max_segments: 0,
      max_item_bytes: 0,
      max_items: 0,
      max_total_bytes: 0,
      max_metadata_keys: 0,
      max_metadata_value_chars: 0,
    });
    expect(zeros.max_items).toBe(0);
    expect(refusal({ segment_chars: 0 })).toBe("segment_chars must be at least 1");
  });

  it("a refusal keeps its words and ends with the caller's names of the limits it is about", () => {
    const flags = { segment_chars: "--segment-chars", segment_overlap: "--segment-overlap", max_item_bytes: "--max-item-bytes" };
    const refused = (overrides: Record<string, unknown>) => {
      try {
        resolvePolicy(overrides, flags);
      } catch (error) {
        return (error as Error).message;
      }
      return null;
    };
    expect(refused({ segment_chars: 10, segment_overlap: 20 })).toBe("segment_overlap must be smaller than segment_chars (--segment-overlap, --segment-chars)");
    expect(refused({ max_item_bytes: 1e11 })).toBe("max_item_bytes must not exceed 67108864 (--max-item-bytes)");
    expect(refused({ segment_chars: 0 })).toBe("segment_chars must be at least 1 (--segment-chars)");
    // A limit the caller gave no name keeps the plain message.
    expect(refused({ max_items: -1 })).toBe("max_items must be a non-negative integer");
  });

  it("segment_overlap must be smaller than segment_chars", () => {
    expect(refusal({ segment_overlap: 3500 })).toBe("segment_overlap must be smaller than segment_chars");
    expect(refusal({ segment_chars: 10, segment_overlap: 11 })).toBe("segment_overlap must be smaller than segment_chars");
  });

  it("non-integers, negatives and booleans are not non-negative integers", () => {
    expect(refusal({ max_items: -1 })).toBe("max_items must be a non-negative integer");
    expect(refusal({ max_segments: 1.5 })).toBe("max_segments must be a non-negative integer");
    expect(refusal({ max_total_bytes: true })).toBe("max_total_bytes must be a non-negative integer");
    expect(refusal({ max_metadata_keys: "32" })).toBe("max_metadata_keys must be a non-negative integer");
    expect(refusal({ segment_chars: Number.NaN })).toBe("segment_chars must be a non-negative integer");
  });

  it("max_item_bytes accepts the 64 MiB ceiling and refuses anything above it, even 10**30", () => {
    expect(resolvePolicy({ max_item_bytes: MAX_ITEM_BYTES_CEILING }).max_item_bytes).toBe(67108864);
    expect(refusal({ max_item_bytes: MAX_ITEM_BYTES_CEILING + 1 })).toBe("max_item_bytes must not exceed 67108864");
    expect(refusal({ max_item_bytes: 1e30 })).toContain("must not exceed");
    expect(refusal({ segment_chars: 1e30 })).toBe("segment_chars must not exceed 67108864");
  });

  it("limits without a ceiling of their own stop at the largest exact integer", () => {
    expect(refusal({ max_items: 2 ** 60 })).toBe(`max_items must not exceed ${Number.MAX_SAFE_INTEGER}`);
  });

  it("validates in the documented order and reports the first problem only", () => {
    expect(refusal({ segment_chars: 0, segment_overlap: -1, max_items: -1 })).toBe("segment_chars must be at least 1");
    expect(refusal({ segment_overlap: -1, max_items: -1 })).toBe("segment_overlap must be a non-negative integer");
    expect(refusal({ max_segments: -1, max_item_bytes: -1 })).toBe("max_segments must be a non-negative integer");
    expect(refusal({ max_metadata_value_chars: -1, stop_after_hold: 1 })).toBe("max_metadata_value_chars must be a non-negative integer");
    expect(refusal({ stop_after_hold: 1 })).toBe("stop_after_hold must be a boolean");
  });

  it("refuses an unknown override name", () => {
    expect(refusal({ name: "lax" } as never)).toBe(
      'unknown policy setting "name"; the settings are segment_chars, segment_overlap, max_segments, max_item_bytes, max_items, max_total_bytes, max_metadata_keys, max_metadata_value_chars, stop_after_hold',
    );
  });

  it("points a camelCase override at the setting it spells, and never quotes a key that is not a plain name", () => {
    expect(refusal({ segmentChars: 2000 } as never)).toMatch(/^unknown policy setting "segmentChars" \(did you mean "segment_chars"\?\); the settings are /);
    expect(refusal({ "a\nb": 1 } as never)).toMatch(/^unknown policy setting \(a key that is not a plain name\); the settings are /);
    expect(refusal({ colour: 1 } as never)).toMatch(/^unknown policy setting "colour"; the settings are /);
  });

  it("the schema refuses unknown keys and an overlap not below segment_chars", () => {
    expect(IngestPolicySchema.safeParse({ ...STRICT_V1, extra: 1 }).success).toBe(false);
    expect(IngestPolicySchema.safeParse({ ...STRICT_V1, segment_overlap: 3500 }).success).toBe(false);
    expect(IngestPolicySchema.safeParse({ ...STRICT_V1, name: "strict/v2" }).success).toBe(false);
  });
});
