import fc from "fast-check";
import stringify from "fast-json-stable-stringify";
import { describe, expect, it } from "vitest";
import { LittleCanaryError } from "../../src/core/errors.js";
import { STRICT_V1, resolvePolicy } from "../../src/documents/policy.js";
import { finishedEntryText, manifestHead } from "../../src/documents/manifest-build.js";
import { buildExport, buildManifest } from "../support/whole-documents.js";
import { countRecords } from "../../src/documents/counts.js";
import { CanonicalJsonError } from "../../src/core/canonical.js";
import { canonicalObjectWithArray } from "../support/core-text.js";
import { sha256Hex } from "../../src/core/hash.js";
import { IngestExportSchema, IngestManifestSchema, TimestampSchema } from "../../src/documents/schemas.js";
import { PIPELINE_INFO, synthRun } from "../support/run-data.js";

const doc1 = { id: "doc-1", source: "shared-drive", metadata: { title: "Q3 notes", author: "ops" }, text: "Quarterly numbers attached." };

/** Everything buildManifest takes besides the records. */
const RUN_SHELL = {
  little_canary_version: "0.1.0",
  started_at: new Date(0).toISOString(),
  finished_at: new Date(0).toISOString(),
  pipeline: PIPELINE_INFO,
  policy: STRICT_V1,
  checks_performed: 0,
  input_sha256: null,
  export_requested: false,
};

describe("buildManifest", () => {
  it("derives totals and counts, validates, and hashes the canonical bytes", () => {
    const run = synthRun([
      doc1,
      { id: null, source: null, metadata: {}, text: "please BLOCK this" },
      { malformed: { text: "", detail: "record 2: 'text' must be a non-empty string" } },
    ]);
    const m = run.manifest.document;
    expect(IngestManifestSchema.safeParse(m).success).toBe(true);
    expect(m.run).toEqual({
      status: "complete",
      records_total: 3,
      checks_performed: 3,
      input_sha256: "52e18ffb40c0a56d606ee07d8623cfbcb05315f61286234d1b95f38f84f14158",
      export_requested: true,
    });
    expect(m.counts).toEqual({
      admitted: 1,
      held: 2,
      by_reason: { malformed: 1, over_budget: 0, blocked: 1, flagged: 0, degraded: 0, unexercised: 0, error: 0, incomplete: 0 },
      detection: { none: 1, flag: 0, block: 1, not_checked: 1 },
      coverage: { complete: 2, partial: 0, none: 1 },
      duplicate_ids: 0,
    });
    expect(run.manifest.sha256).toBe(sha256Hex(run.manifest.bytes));
    expect(new TextDecoder().decode(run.manifest.bytes)).toBe(run.manifest.json);
  });

  it("records labels in plaintext only for admitted records and never record text", () => {
    const run = synthRun([doc1, { id: "secret-id", source: "secret-src", metadata: { k: "SECRET VALUE" }, text: "FLAG SECRET TEXT" }]);
    const [admitted, held] = run.records;
    expect(admitted).toMatchObject({ id: "doc-1", source: "shared-drive", metadata_keys: ["author", "title"], metadata_key_count: 2 });
    expect(held).toMatchObject({ id: null, source: null, metadata_keys: null, metadata_key_count: 1, id_sha256: sha256Hex("secret-id") });
    expect(held?.hold_reasons).toEqual(["flagged"]);
    expect(held?.detection_signals).toEqual(["sig_x"]);
    expect(run.manifest.json).not.toContain("SECRET");
  });

  it("reproduces the worked example's record 0 evidence", () => {
    const [record] = synthRun([doc1]).records;
    expect(record).toMatchObject({
      admission: "admitted",
      chars_total: 85,
      chars_covered: 85,
      length: 27,
      segments_total: 2,
      segments_checked: 2,
      sha256: "54c210e6f5853a676f1a85eebe67cea37e00f1629eda41068ecf21440f2fd385",
      material_sha256: "b1f2f1b76dcb438dffd925b8307ee1e140c493f90bc587ff84247eae1ce3fdb6",
      id_sha256: "bb0e4f49443794d901e8969ff11bd112e34208a0dcdf0e1eedb480cc9b3c7293",
      source_sha256: "f0584b022c5e66af1776a9ca87d23f44d7b8903867a25690cedecf5695435640",
    });
    expect(record?.segments.map((s) => [s.kind, s.start, s.end, s.prompt_eval_count])).toEqual([
      ["metadata", 0, 58, 812],
      ["text", 0, 27, 812],
    ]);
  });

  it("screens metadata before text and stops after a hold", () => {
    const run = synthRun([{ id: null, source: null, metadata: { title: "BLOCK now" }, text: "benign quarterly notes" }]);
    expect(run.checks).toEqual(["title: BLOCK now"]);
    expect(run.records[0]?.segments.map((s) => s.state)).toEqual(["block", "not_checked"]);
    const noStop = synthRun([{ id: null, source: null, metadata: { title: "BLOCK now" }, text: "benign quarterly notes" }], {
      policy: resolvePolicy({ stop_after_hold: false }),
    });
    expect(noStop.checks).toEqual(["title: BLOCK now", "benign quarterly notes"]);
    expect(noStop.records[0]?.hold_reasons).toEqual(["blocked"]);
  });

  it("holds over-budget records with their planned counts and no segments", () => {
    const policy = resolvePolicy({ segment_chars: 10, segment_overlap: 0, max_segments: 3 });
    const run = synthRun(
      [
        { id: "abcdefg", source: null, metadata: {}, text: "t".repeat(20) },
        { id: "abcdef", source: null, metadata: {}, text: "t".repeat(20) },
      ],
      { policy },
    );
    expect(run.records[0]).toMatchObject({
      hold_reasons: ["over_budget"],
      segments_total: 4,
      chars_total: 31,
      segments: [],
      detail: "record 0: needs 4 segments, limit 3; raise it with --max-segments (or a larger --segment-chars)",
    });
    expect(run.records[1]).toMatchObject({ admission: "admitted", segments_checked: 3 });
    expect(run.checks).toHaveLength(3);
  });

  it("holds malformed records with empty digests and a label digest only for valid labels", () => {
    const run = synthRun([
      { malformed: { text: 5, id: "ok", source: "x".repeat(257), detail: "record 0: 'text' must be a non-empty string" } },
      { malformed: { text: "abc", id: "\ud800", detail: "record 1: lone surrogate" } },
    ]);
    expect(run.records[0]).toMatchObject({
      sha256: "",
      material_sha256: "",
      length: 0,
      id_sha256: sha256Hex("ok"),
      source_sha256: null,
      segments_total: 0,
      chars_total: 0,
    });
    expect(run.records[1]).toMatchObject({ length: 3, id_sha256: null, hold_reasons: ["malformed"] });
  });

  it("refuses records whose index is not their position", () => {
    const [record] = synthRun([doc1]).records;
    expect(() => buildManifest({ ...RUN_SHELL, records: [{ ...record!, index: 1 }] })).toThrow(/position 0/);
  });

  it("gives the bytes of serializing the whole document at once, with or without pre-made entries", () => {
    const inputs = [doc1, { id: null, source: null, metadata: {}, text: "please BLOCK this" }, { malformed: { text: "", detail: "record 2: bad" } }];
    const run = synthRun(inputs);
    expect(run.manifest.json).toBe(stringify(run.manifest.document));
    const shell = { ...RUN_SHELL, checks_performed: 3 };
    const whole = buildManifest({ ...shell, records: synthRun(inputs).records });
    // Pre-made entries joined around the head, as the record runner frames a spooled manifest.
    const records = synthRun(inputs).records;
    const joined = canonicalObjectWithArray(
      manifestHead(shell, records.length, countRecords(records)),
      "records",
      records.map((r, i) => finishedEntryText(r, i, STRICT_V1, 1)),
    );
    expect(joined).toBe(whole.json);
    expect(whole.json).toBe(stringify(whole.document));
  });

  it("made-canonical entries are frozen and checked at their place", () => {
    const [record] = synthRun([doc1]).records;
    finishedEntryText(record!, 0, STRICT_V1, 1);
    expect(Object.isFrozen(record)).toBe(true);
    expect(Object.isFrozen(record!.segments[0])).toBe(true);
    const [other] = synthRun([doc1]).records;
    expect(() => finishedEntryText({ ...other!, latency: 1 } as never, 0, STRICT_V1, 1)).toThrow(/schema at \.records\[0\]/);
    const bad = structuredClone(other!);
    (bad.segments[0] as { latency: number }).latency = Number.NaN;
    expect(() => finishedEntryText(bad, 0, STRICT_V1, 1)).toThrow(CanonicalJsonError);
    expect(() => finishedEntryText(bad, 0, STRICT_V1, 1)).toThrow("non-finite number at .records[0].segments[0].latency");
    expect(() => finishedEntryText(other!, 3, STRICT_V1, 1)).toThrow(/position 3/);
  });

  it("joining member texts equals serializing the whole, for any JSON document", () => {
    const wellFormed = fc.jsonValue().filter((v) => JSON.stringify(v).isWellFormed());
    fc.assert(
      fc.property(fc.dictionary(fc.string(), wellFormed), fc.string(), fc.array(wellFormed, { maxLength: 8 }), (rest, key, items) => {
        fc.pre(!Object.hasOwn(rest, key));
        const texts = items.map((item) => stringify(item) ?? "null");
        expect(canonicalObjectWithArray(rest, key, texts)).toBe(stringify({ ...rest, [key]: items }));
      }),
      { numRuns: 300 },
    );
  });

  it("a timestamp is written in UTC with milliseconds, as the manifest schema requires", () => {
    const written = new Date(Date.UTC(2026, 8, 29, 12, 0, 3, 362)).toISOString();
    expect(written).toBe("2026-09-29T12:00:03.362Z");
    expect(TimestampSchema.safeParse(written).success).toBe(true);
  });
});

describe("buildExport", () => {
  it("exports admitted records in index order with their exact text and metadata", () => {
    const crlf = { id: null, source: null, metadata: JSON.parse('{"__proto__":"p"}'), text: "\uFEFFline\r\n\u0000e\u0301 " };
    const run = synthRun([crlf, { id: null, source: null, metadata: {}, text: "FLAG" }, doc1]);
    const ex = run.exported!.document;
    expect(IngestExportSchema.safeParse(ex).success).toBe(true);
    expect(ex.records.map((r) => r.index)).toEqual([0, 2]);
    expect(ex.records[0]?.text).toBe(crlf.text);
    expect(run.exported!.json).toContain('"metadata":{"__proto__":"p"}');
    expect(ex.manifest_sha256).toBe(run.manifest.sha256);
    expect(Object.keys(ex).sort()).toEqual(["manifest_schema", "manifest_sha256", "policy_name", "records", "schema"]);
  });

  it("refuses snapshots that do not match the manifest", () => {
    const run = synthRun([doc1, { id: null, source: null, metadata: {}, text: "fine" }]);
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(LittleCanaryError);
        return (error as Error).message;
      }
      return "no refusal";
    };
    expect(refusal(() => buildExport(run.manifest, run.admitted.slice(1)))).toBe("export refused: admitted entries do not match the run's records");
    expect(refusal(() => buildExport(run.manifest, [...run.admitted, run.admitted[0]!]))).toBe(
      "export refused: admitted entries do not match the run's records",
    );
    const tampered = [{ index: 0, record: { ...doc1, text: "Quarterly numbers attached!" } }, run.admitted[1]!];
    expect(refusal(() => buildExport(run.manifest, tampered))).toBe("export refused: admitted entry 0 does not match the run's records");
    const relabelled = [{ index: 0, record: { ...doc1, metadata: { title: "Q3 notes", owner: "ops" } } }, run.admitted[1]!];
    expect(refusal(() => buildExport(run.manifest, relabelled))).toBe("export refused: admitted entry 0 does not match the run's records");
  });

  it("refuses when the manifest does not record that an export was requested", () => {
    const run = synthRun([doc1], { exportRequested: false });
    expect(() => buildExport(run.manifest, run.admitted)).toThrow(/export refused/);
  });
});
