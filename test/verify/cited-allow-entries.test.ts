// The allowlist entries a manifest's records cite are told apart by all four fields, counted across
// shares as in one, and kept only up to one more than an allow file may hold.
import { describe, expect, it } from "vitest";
import { MAX_ALLOW_ENTRIES } from "../../src/documents/allowlist.js";
import { CitedAllowEntries } from "../../src/verify/manifest-checks.js";

const entry = (i: number, by = "reviewer") => ({ sha256: i.toString(16).padStart(64, "0"), scope: "record", reason: "quoted in a report", by });

describe("allowlist entries cited by a manifest's records", () => {
  it("counts distinct entries by every field, ignoring records without a list and values that are not entries", () => {
    const cited = new CitedAllowEntries();
    cited.add({ allowlist_entries: [entry(1), entry(1)] });
    cited.add({ allowlist_entries: [entry(1, "someone else"), "not an entry", null] });
    cited.add({ admission: "admitted" });
    cited.add(null);
    expect(cited.size).toBe(2);
  });

  it("two shares absorbed give the count of one, and the count stops one past what an allow file holds", () => {
    const [one, first, second] = [new CitedAllowEntries(), new CitedAllowEntries(), new CitedAllowEntries()];
    for (let i = 0; i < 10; i++) {
      one.add({ allowlist_entries: [entry(i)] });
      (i % 2 === 0 ? first : second).add({ allowlist_entries: [entry(i), entry(0)] });
    }
    first.absorb(second.keys());
    expect(first.size).toBe(one.size);
    const many = new CitedAllowEntries();
    many.add({ allowlist_entries: Array.from({ length: MAX_ALLOW_ENTRIES + 50 }, (_, i) => entry(i)) });
    expect(many.size).toBe(MAX_ALLOW_ENTRIES + 1);
  });
});

describe("allowlist entries cited with hostile fields", () => {
  it("are kept as digests, however long their fields, and a lone surrogate in one is no error", () => {
    const cited = new CitedAllowEntries();
    cited.add({
      allowlist_entries: [
        { ...entry(1), reason: "r".repeat(1 << 20) },
        { ...entry(2), by: "\ud800" },
        { ...entry(3), sha256: 7 },
      ],
    });
    expect(cited.size).toBe(3);
    expect(cited.keys().every((key) => /^[0-9a-f]{64}$/.test(key))).toBe(true);
  });
});
