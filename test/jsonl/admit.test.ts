// The one admission of in-memory inputs (src/jsonl/admit.ts), behind admitScreenInputs and
// admitIngestInputs: the same record rules and run-level limits, each verb naming its refusals.
import { describe, expect, it } from "vitest";
import { admitIngestInputs } from "../../src/ingest/run.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { admitInMemoryInputs } from "../../src/jsonl/admit.js";
import { DEFAULT_READER_LIMITS } from "../../src/documents/reader-limits.js";
import { admitScreenInputs, BatchRefusedError } from "../../src/screen/admit.js";

const refuse = (code: string, index: number) => new Error(`${code}@${index}`);

describe("admitInMemoryInputs", () => {
  it("refuses too many inputs, a non-record and too many bytes with stable codes", () => {
    const limits = { ...DEFAULT_READER_LIMITS, maxItems: 2, maxTotalBytes: 5 };
    expect(() => admitInMemoryInputs(["a", "b", "c"], { kind: "screen", limits, refuse })).toThrow("too_many_items@3");
    expect(() => admitInMemoryInputs(["a", 7], { kind: "ingest", limits, refuse })).toThrow("not_a_record@1");
    expect(() => admitInMemoryInputs(["abc", "def"], { kind: "screen", limits, refuse })).toThrow("total_bytes@1");
  });

  it("ingest inputs are snapshotted deeply, so later mutation changes nothing", () => {
    const input = { text: "hello", metadata: { k: "v" } };
    const [record] = admitInMemoryInputs([input], { kind: "ingest", limits: DEFAULT_READER_LIMITS, refuse });
    input.metadata.k = "changed";
    input.text = "changed";
    expect(record?.text).toBe("hello");
    expect(record?.metadata).toEqual({ k: "v" });
  });

  it("screen and ingest refuse through it with their own messages", () => {
    expect(() => admitScreenInputs(["a", "b"], { maxItems: 1 })).toThrow(new BatchRefusedError("too_many_items", "batch exceeds the limit of 1 items"));
    expect(() => admitScreenInputs([5 as never])).toThrow("item 0: must be a string or object with 'text'");
    const policy = resolvePolicy({ max_items: 1 });
    expect(() => admitIngestInputs(["a", "b"], policy)).toThrow("ingest exceeds the limit of 1 records");
    expect(() => admitIngestInputs([[] as never], resolvePolicy())).toThrow("record 0: must be a string or object");
  });

  it("a hole of a sparse array is an item like undefined, refused by its index, never skipped", () => {
    const sparse = [, "hello"] as unknown as string[];
    expect(() => admitScreenInputs(sparse)).toThrow(new BatchRefusedError("not_a_record", "item 0: must be a string or object with 'text'"));
    expect(() => admitScreenInputs(new Array(2))).toThrow("item 0: must be a string or object with 'text'");
    expect(() => admitIngestInputs(sparse, resolvePolicy())).toThrow("record 0: must be a string or object");
    // A hole after the limit's count is still refused by the limit first, without reading the items.
    expect(() => admitScreenInputs(new Array(2 ** 31), { maxItems: 10 })).toThrow("batch exceeds the limit of 10 items");
  });
});
