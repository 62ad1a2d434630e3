// The compact manifest (little-canary-ingest-manifest/v2) carries every fact of v1: the same
// run written both ways gives v2 records that expand to exactly the v1 records, the same head
// apart from the schema name, and pairs that verify alike. Its size is pinned as a byte count.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/core/canonical.js";
import { parseAllowlist } from "../../src/documents/allowlist.js";
import {
  compactRecordV1,
  expandRecordV2,
  IngestManifestV2Schema,
  MANIFEST_SCHEMA_V2,
  manifestFacts,
  ManifestRecordV2Schema,
  RecordV2Error,
} from "../../src/documents/manifest-v2.js";
import { resolvePolicy, STRICT_V1 } from "../../src/documents/policy.js";
import { HOLD_REASONS, ManifestRecordSchema } from "../../src/documents/schemas.js";
import { verifyExport } from "../../src/verify/verify-export.js";
import { reparse, synthRun, type SynthInput } from "../support/run-data.js";

/** Small windows so that short texts span several segments and long ones go over budget. */
const POLICY = resolvePolicy({ segment_chars: 40, segment_overlap: 8, max_segments: 4 });
const GEOMETRY = { chars: POLICY.segment_chars, overlap: POLICY.segment_overlap };

// Keywords of the scripted canary (test/support/run-data.ts), one per verdict kind.
const WORDS = ["plain words here", "STRUCT", "BLOCK", "FLAG", "DEGRADE", "NORISK", "NOCANARY", "RAISE"] as const;

const recordArb: fc.Arbitrary<SynthInput> = fc.oneof(
  fc.record({
    id: fc.option(fc.stringMatching(/^[a-z0-9-]{1,12}$/), { nil: null }),
    source: fc.option(fc.constantFrom("kb/a.md", "web/b.html"), { nil: null }),
    metadata: fc.dictionary(fc.constantFrom("title", "lang", "author"), fc.constantFrom("Notes", "en", "FLAG me", "ops")),
    text: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 6 }).map((words) => words.join(" ")),
  }),
  fc.constant({ malformed: { text: "", detail: "record: 'text' must be a non-empty string" } }),
  fc.constant({ id: "long", source: null, metadata: {}, text: "x".repeat(400) }),
);

/** Both versions of one run, the v2 one checked against its own schema. */
function bothVersions(inputs: readonly SynthInput[], options: { policy: typeof POLICY; allowlist?: ReturnType<typeof parseAllowlist> }) {
  const v1 = synthRun(inputs, options);
  const v2 = synthRun(inputs, { ...options, manifestVersion: 2 });
  expect(IngestManifestV2Schema.safeParse(v2.manifest.document).success).toBe(true);
  return { v1, v2 };
}

function expectSameFacts(inputs: readonly SynthInput[], options: { policy: typeof POLICY; allowlist?: ReturnType<typeof parseAllowlist> }): void {
  const { v1, v2 } = bothVersions(inputs, options);
  const { records: v1Records, schema: _s1, ...v1Head } = v1.manifest.document;
  const { records: _r2, schema, ...v2Head } = v2.manifest.document;
  expect(schema).toBe(MANIFEST_SCHEMA_V2);
  expect(v2Head).toEqual(v1Head);
  expect(manifestFacts(v2.manifest.document)).toEqual(v1Records);
  // Same admitted records, same export records; both pairs verify, and alike.
  expect(v2.exported?.document.records).toEqual(v1.exported?.document.records);
  const v1Problems = verifyExport(reparse(v1.exported?.document), reparse(v1.manifest.document), { manifestBytes: v1.manifest.bytes });
  const v2Problems = verifyExport(reparse(v2.exported?.document), reparse(v2.manifest.document), { manifestBytes: v2.manifest.bytes });
  expect(v1Problems).toEqual([]);
  expect(v2Problems).toEqual(v1Problems);
}

describe("manifest v2 carries every fact of v1", () => {
  it("random record sets (admitted and held, every verdict kind, malformed and over budget) give the same facts both ways", () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 8 }), fc.boolean(), (inputs, stop) => {
        expectSameFacts(inputs, { policy: { ...POLICY, stop_after_hold: stop } });
      }),
      { numRuns: 60, seed: 28 },
    );
  });

  it("every hold reason, and an allow-listed admission, is carried (the reasons are all produced here)", () => {
    const inputs: SynthInput[] = [
      { malformed: { text: "", detail: "record 0: 'text' must be a non-empty string" } },
      { id: "long", source: null, metadata: {}, text: "x".repeat(400) },
      ...["STRUCT", "BLOCK", "FLAG", "DEGRADE", "NOCANARY", "RAISE", "NORISK", "plain"].map((word) => ({
        id: word,
        source: null,
        metadata: {},
        text: `${word} then more words so that the record has two segments at least`,
      })),
    ];
    const { v1 } = bothVersions(inputs, { policy: POLICY });
    const reasons = new Set(v1.manifest.document.records.flatMap((r) => r.hold_reasons));
    expect([...reasons].sort()).toEqual([...HOLD_REASONS].sort());
    expectSameFacts(inputs, { policy: POLICY });
    // An allow-listed admission keeps its basis and entries.
    const blocked = v1.manifest.document.records.find((r) => r.id_sha256 !== null && r.hold_reasons.join() === "blocked,incomplete");
    expect(blocked).toBeDefined();
    const relaxed = { ...POLICY, stop_after_hold: false };
    const held = synthRun(inputs, { policy: relaxed }).manifest.document.records.find((r) => r.detection === "block" && r.hold_reasons.join() === "blocked");
    const allowlist = parseAllowlist(Buffer.from(JSON.stringify([{ sha256: held?.material_sha256, scope: "record", reason: "reviewed", by: "test" }])));
    expect(synthRun(inputs, { policy: relaxed, allowlist }).records.some((r) => r.admission_basis === "allowlist")).toBe(true);
    expectSameFacts(inputs, { policy: relaxed, allowlist });
  });

  it("a forged state in a v2 record is found by verify as in v1", () => {
    const inputs: SynthInput[] = [{ id: "a", source: null, metadata: {}, text: "BLOCK this one" }];
    const { v2 } = bothVersions(inputs, { policy: POLICY });
    const forged = reparse(v2.manifest.document) as { records: Array<Record<string, unknown>> };
    forged.records[0] = { ...forged.records[0], admission: "admitted", hold_reasons: [] };
    const codes = verifyExport(reparse(v2.exported?.document), forged).map((p) => p.code);
    expect(codes).toContain("record_state_mismatch");
  });

  it("a v2 record stating lengths of 10^15 code points is refused by its segment count, before any plan is built", () => {
    const { v2 } = bothVersions([{ id: "a", source: null, metadata: { k: "v" }, text: "plain words here" }], { policy: POLICY });
    const manifest = reparse(v2.manifest.document) as { records: Array<Record<string, unknown>> };
    const record = manifest.records[0] as Record<string, unknown>;
    const geometry = { chars: POLICY.segment_chars as number, overlap: POLICY.segment_overlap as number };
    expect((record["segments"] as unknown[]).length).toBe(2);
    // Building the plan of these lengths would take a billion windows and exhaust the heap.
    for (const [length, charsTotal] of [
      [1e15, 1e15 + 67],
      [1e15, 1e15],
      [10, 1e15],
    ]) {
      const hostile = { ...record, length, chars_total: charsTotal } as unknown as Parameters<typeof expandRecordV2>[0];
      expect(() => expandRecordV2(hostile, 0, geometry)).toThrow(RecordV2Error);
      const problems = verifyExport(reparse(v2.exported?.document), { ...manifest, records: [hostile] });
      expect(problems.map((p) => p.code)).toContain("manifest_invalid");
    }
  });

  it("a v1 record inside a v2 manifest is a schema problem of the v2 manifest", () => {
    const { v1, v2 } = bothVersions([{ id: "a", source: null, metadata: {}, text: "plain" }], { policy: POLICY });
    const mixed = { ...reparse(v2.manifest.document), records: reparse(v1.manifest.document).records };
    const problems = verifyExport(reparse(v2.exported?.document), mixed);
    expect(problems.map((p) => p.code)).toContain("manifest_invalid");
  });
});

describe("manifest v2 size", () => {
  // A clean record of two segments (its metadata, its text) like the first of examples/records.jsonl,
  // with the scripted canary's pass verdicts (latencies of four decimals, a prompt token count).
  const clean: SynthInput = {
    id: "kb-returns",
    source: "kb/returns.md",
    metadata: { title: "Returns policy", lang: "en" },
    text: "Returns are accepted within 30 days of delivery. Items must be unused and in their original packaging. Refunds go back to the original payment method within five business days.",
  };

  it("a clean 2-segment record takes at most 600 bytes in v2 (a byte count, printed beside v1's)", () => {
    const [record] = synthRun([clean]).records;
    expect(record?.segments).toHaveLength(2);
    expect(record?.admission).toBe("admitted");
    const v1Bytes = Buffer.byteLength(canonicalJson(ManifestRecordSchema, record));
    const v2Text = canonicalJson(
      ManifestRecordV2Schema,
      compactRecordV1(record as NonNullable<typeof record>, { chars: STRICT_V1.segment_chars, overlap: STRICT_V1.segment_overlap }),
    );
    const v2Bytes = Buffer.byteLength(v2Text);
    process.stdout.write(`manifest bytes per clean 2-segment record: v1=${v1Bytes} v2=${v2Bytes}\n`);
    expect(v1Bytes).toBe(2229);
    expect(v2Bytes).toBe(578);
    expect(v2Bytes).toBeLessThanOrEqual(600);
  });

  it("a held record keeps its evidence: its verdicts' reasons, locations and signals are written", () => {
    const [record] = synthRun([{ ...clean, text: `${clean.text} STRUCT` }]).records;
    expect(record?.admission).toBe("held");
    const compact = compactRecordV1(record as NonNullable<typeof record>, { chars: STRICT_V1.segment_chars, overlap: STRICT_V1.segment_overlap });
    const text = canonicalJson(ManifestRecordV2Schema, compact);
    process.stdout.write(
      `manifest bytes of a held 2-segment record: v1=${Buffer.byteLength(canonicalJson(ManifestRecordSchema, record))} v2=${Buffer.byteLength(text)}\n`,
    );
    expect(text).toContain('"blocked_by":"structural_filter"');
    expect(text).toContain('"state":"block"');
    expect(expandRecordV2(compact, 0, { chars: STRICT_V1.segment_chars, overlap: STRICT_V1.segment_overlap })).toEqual(record);
  });

  it("geometry follows from the position and the policy, so a v2 record never writes kind, index, start or end", () => {
    const { v2 } = bothVersions([{ id: "a", source: null, metadata: { k: "v" }, text: "plain ".repeat(12) }], { policy: POLICY });
    const [record] = v2.manifest.document.records as Array<{ segments: object[] }>;
    for (const segment of record?.segments ?? []) for (const key of ["kind", "index", "start", "end"]) expect(segment).not.toHaveProperty(key);
    expect(GEOMETRY.chars).toBe(40);
  });
});
