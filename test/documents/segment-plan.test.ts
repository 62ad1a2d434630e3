import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STRICT_V1 } from "../../src/documents/policy.js";
import { isOverBudget, planSegments, sliceSpans } from "../../src/documents/segment-plan.js";
import { segmentSpans } from "../../src/documents/segment-spans.js";
import { codePointLength } from "../../src/core/codepoints.js";

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const policy = (segment_chars: number, segment_overlap: number, max_segments = 8, max_item_bytes = 65536) => ({
  segment_chars,
  segment_overlap,
  max_segments,
  max_item_bytes,
});
const record = (text: string, extra: Partial<{ id: string | null; source: string | null; metadata: Record<string, string> }> = {}) => ({
  id: null,
  source: null,
  metadata: {},
  text,
  ...extra,
});

// Text mixing ASCII, BMP and astral characters, so surrogate pairs sit at arbitrary offsets.
const mixedText = fc
  .array(fc.constantFrom("a", "é", "\u{1F600}", "\u{10348}", "\uFF01", "\n", "z"), { minLength: 1, maxLength: 120 })
  .map((chars) => chars.join(""));

describe("planSegments", () => {
  it("plans metadata segments first, then text, each kind indexed from 0", () => {
    const plan = planSegments(record("t".repeat(20), { id: "abcdef" }), policy(10, 0));
    expect(plan.material).toBe("id: abcdef");
    expect(plan.segments.map((s) => [s.kind, s.index, s.start, s.end])).toEqual([
      ["metadata", 0, 0, 10],
      ["text", 0, 0, 10],
      ["text", 1, 10, 20],
    ]);
    expect(plan.segments_total).toBe(3);
    expect(plan.chars_total).toBe(30);
    expect(plan.over_budget).toBe(false);
  });

  it("one more material char than fits makes the record over budget, with counts kept and no segments", () => {
    const plan = planSegments(record("t".repeat(20), { id: "abcdefg" }), policy(10, 0, 3));
    expect(plan.over_budget).toBe(true);
    expect(plan.segments_total).toBe(4);
    expect(plan.chars_total).toBe(31);
    expect(plan.segments).toEqual([]);
    expect(plan.over_budget_reason).toEqual({ code: "segments", message: "needs 4 segments, limit 3" });
  });

  it("text bytes above max_item_bytes take precedence over the segment count", () => {
    const plan = planSegments(record("x".repeat(20)), policy(1, 0, 0, 10));
    expect(plan.over_budget_reason).toEqual({ code: "text_bytes", message: "text exceeds 10 bytes" });
    expect(planSegments(record("é".repeat(5)), policy(10, 0, 8, 10)).over_budget).toBe(false);
    expect(planSegments(record("é".repeat(6)), policy(10, 0, 8, 10)).over_budget).toBe(true);
  });

  it("max_segments 0 makes every record over budget", () => {
    expect(planSegments(record("a"), policy(10, 0, 0)).over_budget).toBe(true);
  });

  it("each segment hashes the UTF-8 of its own slice", () => {
    const plan = planSegments(
      record("Quarterly numbers attached.", { id: "doc-1", source: "shared-drive", metadata: { title: "Q3 notes", author: "ops" } }),
      STRICT_V1,
    );
    expect(plan.material).toBe("id: doc-1\nsource: shared-drive\nauthor: ops\ntitle: Q3 notes");
    expect(plan.chars_total).toBe(85);
    // Pinned SHA-256 digests of this worked example's slices.
    expect(plan.segments[0]?.sha256).toBe("47a669947538fce5eff823ca7ad1dc9a96812a995bc6c6dc0aa17927f01c5697");
    expect(plan.segments[1]?.sha256).toBe("54c210e6f5853a676f1a85eebe67cea37e00f1629eda41068ecf21440f2fd385");
  });

  it("never splits a surrogate pair and reassembles the text from its slices", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 1, max: 12 }), fc.nat(), (text, chars, o) => {
        const overlap = o % chars;
        const plan = planSegments(record(text), policy(chars, overlap, 10_000));
        const cps = Array.from(text);
        let rebuilt = "";
        for (const s of plan.segments) {
          expect(s.text.isWellFormed()).toBe(true);
          expect(s.text).toBe(cps.slice(s.start, s.end).join(""));
          expect(codePointLength(s.text)).toBe(s.end - s.start);
          expect(s.sha256).toBe(sha(s.text));
          rebuilt += Array.from(s.text)
            .slice(Math.max(0, codePointLength(rebuilt) - s.start))
            .join("");
        }
        expect(rebuilt).toBe(text);
      }),
    );
  });

  it("is a pure function of the record and the policy", () => {
    fc.assert(
      fc.property(mixedText, fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 8 }), { maxKeys: 4 }), (text, metadata) => {
        const r = record(text, { id: "x", metadata });
        const first = planSegments(r, policy(7, 2, 1000));
        const second = planSegments(structuredClone(r), policy(7, 2, 1000));
        expect(second).toEqual(first);
      }),
    );
  });

  it("a given text digest gives the same plan as hashing, with or without a whole-text segment", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 1, max: 200 }), (text, chars) => {
        const r = record(text, { id: "x" });
        const p = policy(chars, Math.min(2, chars - 1), 1000);
        const given = planSegments(r, p, { textSha256: sha(text) });
        expect(given).toEqual(planSegments(r, p));
      }),
    );
  });

  it("the given text digest stands only for a segment that is the whole text", () => {
    const r = record("abcdefghij");
    const marked = planSegments(r, policy(20, 2), { textSha256: "given" }).segments.filter((s) => s.kind === "text");
    expect(marked.map((s) => s.sha256)).toEqual(["given"]);
    const split = planSegments(r, policy(6, 2), { textSha256: "given" }).segments.filter((s) => s.kind === "text");
    expect(split.length).toBeGreaterThan(1);
    expect(split.map((s) => s.sha256)).toEqual(split.map((s) => sha(s.text)));
  });

  it("with the text's digest and length given, a text of one segment is not read: any string in its place plans the same", () => {
    fc.assert(
      fc.property(mixedText, fc.integer({ min: 1, max: 200 }), (text, chars) => {
        const r = record(text, { id: "x", metadata: { k: "v" } });
        const p = { ...policy(chars, Math.min(2, chars - 1), 1000), max_item_bytes: Number.POSITIVE_INFINITY };
        const length = codePointLength(text);
        if (segmentSpans(length, p.segment_chars, p.segment_overlap).length !== 1) return;
        const real = planSegments(r, p, { textSha256: sha(text), textLength: length });
        const stand = planSegments({ ...r, text: "" }, p, { textSha256: sha(text), textLength: length });
        const place = (plan: typeof real) => plan.segments.map(({ kind, index, start, end, sha256 }) => ({ kind, index, start, end, sha256 }));
        expect(place(stand)).toEqual(place(real));
        expect(stand.chars_total).toBe(real.chars_total);
        expect(place(real)).toEqual(place(planSegments(r, p)));
      }),
    );
  });
});

describe("sliceSpans' shortcut for texts without surrogates", () => {
  it("slices equal code-point slicing for any text, with or without astral characters", () => {
    const unit = fc.constantFrom("a", "é", "東", "😀", "\n", " ", "𝔸", "z");
    fc.assert(
      fc.property(fc.array(unit, { maxLength: 60 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 8 }), (units, chars, overlapRaw) => {
        const text = units.join("");
        const points = [...text];
        const overlap = Math.min(overlapRaw, chars - 1);
        const spans = segmentSpans(points.length, chars, overlap);
        const expected = spans.map((s) => points.slice(s.start, s.end).join(""));
        expect(sliceSpans(text, spans)).toEqual(expected);
        expect(sliceSpans(text, spans, points.length)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("isOverBudget, the first pass's budget decision", () => {
  it("gives planSegments' over_budget for any record, near every limit, with astral and multi-byte text", () => {
    const unit = fc.constantFrom("a", "é", "東", "😀", "𝔸", " ", "\n");
    const label = fc.option(
      fc.array(unit, { maxLength: 12 }).map((u) => u.join("")),
      { nil: null },
    );
    fc.assert(
      fc.property(
        fc.array(unit, { minLength: 1, maxLength: 80 }),
        label,
        label,
        fc.dictionary(
          fc.constantFrom("lang", "part", "ключ"),
          fc.array(unit, { maxLength: 10 }).map((u) => u.join("")),
        ),
        fc.integer({ min: 2, max: 12 }),
        fc.integer({ min: 0, max: 11 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 260 }),
        (units, id, source, metadata, chars, overlapRaw, maxSegments, maxBytes) => {
          const p = policy(chars, Math.min(overlapRaw, chars - 1), maxSegments, maxBytes);
          const r = record(units.join(""), { id, source, metadata });
          expect(isOverBudget(r, p)).toBe(planSegments(r, p).over_budget);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("a text just over the byte limit only in UTF-8 (not in UTF-16 units) is over budget", () => {
    // 10 units, 10 code points, 30 bytes: the unit bound says nothing, the exact count decides.
    const text = "東".repeat(10);
    expect(isOverBudget(record(text), policy(100, 0, 8, 29))).toBe(true);
    expect(isOverBudget(record(text), policy(100, 0, 8, 30))).toBe(false);
    // 4 astral characters: 8 units but 4 code points, so 4 windows of 1, not 8.
    expect(isOverBudget(record("😀".repeat(4)), policy(1, 0, 4, 1000))).toBe(false);
    expect(isOverBudget(record("😀".repeat(4)), policy(1, 0, 3, 1000))).toBe(true);
  });
});
