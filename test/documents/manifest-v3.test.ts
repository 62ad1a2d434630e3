// Manifest v3 (little-canary-ingest-manifest/v3) is v2 with the structural rules' version in the
// pipeline record: the same records, the same facts, and a version that is null exactly when the
// structural layer was off. v1 and v2 have no key for it.
import { describe, expect, it } from "vitest";
import {
  EXPORT_SCHEMA_V3,
  IngestManifestV2Schema,
  IngestManifestV3Schema,
  MANIFEST_SCHEMA_V3,
  manifestFacts,
  manifestVersionOf,
} from "../../src/documents/manifest-v2.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { IngestManifestSchema } from "../../src/documents/schemas.js";
import { STRUCTURAL_RULES_VERSION } from "../../src/structural/rules.js";
import { verifyExport } from "../../src/verify/verify-export.js";
import { reparse, synthRun, type SynthInput } from "../support/run-data.js";

const POLICY = resolvePolicy({ segment_chars: 40, segment_overlap: 8, max_segments: 4 });
const INPUTS: SynthInput[] = [
  { id: "a", source: "kb/a.md", metadata: { title: "Notes" }, text: "plain words here" },
  { id: "b", source: null, metadata: {}, text: "BLOCK this one" },
  { id: "c", source: null, metadata: {}, text: "FLAG and DEGRADE plain words here" },
];

function runs() {
  const v2 = synthRun(INPUTS, { policy: POLICY, manifestVersion: 2 });
  const v3 = synthRun(INPUTS, { policy: POLICY, manifestVersion: 3 });
  return { v2, v3 };
}

type Loose = Record<string, unknown> & { pipeline: Record<string, unknown>; records: unknown[] };

describe("manifest v3", () => {
  it("is what ingest writes when no version is asked for", () => {
    expect(manifestVersionOf(undefined)).toBe(3);
    expect(() => manifestVersionOf(4)).toThrow(/1, 2 or 3/);
  });

  it("records the structural rules' version in its pipeline; v1 and v2 of the same run have no such key", () => {
    const { v2, v3 } = runs();
    const v1 = synthRun(INPUTS, { policy: POLICY });
    expect(v3.manifest.document.schema).toBe(MANIFEST_SCHEMA_V3);
    expect(v3.exported?.document.schema).toBe(EXPORT_SCHEMA_V3);
    expect(v3.exported?.document.manifest_schema).toBe(MANIFEST_SCHEMA_V3);
    expect((v3.manifest.document.pipeline as Record<string, unknown>)["structural_rules_version"]).toBe(STRUCTURAL_RULES_VERSION);
    expect(v2.manifest.document.pipeline).not.toHaveProperty("structural_rules_version");
    expect(v1.manifest.document.pipeline).not.toHaveProperty("structural_rules_version");
    expect(IngestManifestV3Schema.safeParse(reparse(v3.manifest.document)).success).toBe(true);
  });

  it("carries the same records and facts as v2, and its pair verifies alike", () => {
    const { v2, v3 } = runs();
    expect(v3.manifest.document.records).toEqual(v2.manifest.document.records);
    expect(manifestFacts(v3.manifest.document)).toEqual(manifestFacts(v2.manifest.document));
    expect(v3.exported?.document.records).toEqual(v2.exported?.document.records);
    const problems = verifyExport(reparse(v3.exported?.document), reparse(v3.manifest.document), { manifestBytes: v3.manifest.bytes });
    expect(problems).toEqual([]);
  });

  it("a rules version that is null while the structural filter ran, or set while it was off, is a schema problem", () => {
    const { v3 } = runs();
    const base = reparse(v3.manifest.document) as unknown as Loose;
    const nulled = { ...base, pipeline: { ...base.pipeline, structural_rules_version: null } };
    const setWhileOff = { ...base, pipeline: { ...base.pipeline, structural_filter: false } };
    const offAndNull = { ...base, pipeline: { ...base.pipeline, structural_filter: false, structural_rules_version: null } };
    expect(IngestManifestV3Schema.safeParse(nulled).success).toBe(false);
    expect(IngestManifestV3Schema.safeParse(setWhileOff).success).toBe(false);
    expect(IngestManifestV3Schema.safeParse(offAndNull).success).toBe(true);
    const codes = verifyExport(reparse(v3.exported?.document), nulled).map((p) => p.code);
    expect(codes).toContain("manifest_invalid");
  });

  it("a v3 manifest without the key, or a v2 or v1 manifest with it, does not match its schema", () => {
    const { v2, v3 } = runs();
    const v3Doc = reparse(v3.manifest.document) as unknown as Loose;
    const { structural_rules_version: _v, ...withoutKey } = v3Doc.pipeline;
    expect(IngestManifestV3Schema.safeParse({ ...v3Doc, pipeline: withoutKey }).success).toBe(false);
    const v2Doc = reparse(v2.manifest.document) as unknown as Loose;
    expect(IngestManifestV2Schema.safeParse({ ...v2Doc, pipeline: { ...v2Doc.pipeline, structural_rules_version: 4 } }).success).toBe(false);
    const v1 = reparse(synthRun(INPUTS, { policy: POLICY }).manifest.document) as unknown as Loose;
    expect(IngestManifestSchema.safeParse({ ...v1, pipeline: { ...v1.pipeline, structural_rules_version: 4 } }).success).toBe(false);
  });

  it("a v3 manifest with a v2 export is an export schema problem", () => {
    const { v2, v3 } = runs();
    const exported = { ...reparse(v2.exported?.document), manifest_sha256: v3.manifest.sha256 };
    const codes = verifyExport(exported, reparse(v3.manifest.document), { manifestBytes: v3.manifest.bytes }).map((p) => p.code);
    expect(codes).toContain("export_schema");
  });
});
