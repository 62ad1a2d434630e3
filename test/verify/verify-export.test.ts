import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/core/hash.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { verifyExport, verifyManifestOnly } from "../../src/verify/verify-export.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import type { VerifyProblem } from "../../src/verify/problems.js";
import { reparse, synthRun } from "../support/run-data.js";

// Any JSON value; tests tamper with parsed documents the way an attacker edits files.
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc1 = { id: "doc-1", source: "shared-drive", metadata: { title: "Q3 notes", author: "ops" }, text: "Quarterly numbers attached." };
const held = { id: null, source: null, metadata: {}, text: "please BLOCK this" };
const doc3 = { id: null, source: "wiki", metadata: {}, text: "Second admitted text." };

function pair() {
  const run = synthRun([doc1, held, doc3]);
  return { manifest: reparse(run.manifest.document) as Json, exported: reparse(run.exported!.document) as Json, run };
}

/** Re-hash the export so it names the (tampered) manifest: a consistent forgery attempt. */
function rehash(manifest: Json, exported: Json): void {
  exported.manifest_sha256 = sha256Hex(canonicalJsonUnchecked(manifest));
}

const codes = (problems: VerifyProblem[]) => problems.map((p) => p.code);
const messages = (problems: VerifyProblem[]) => problems.map((p) => p.message);

describe("verifyExport on a genuine pair", () => {
  it("finds nothing wrong, with or without the exact file bytes", () => {
    const { manifest, exported, run } = pair();
    expect(verifyExport(exported, manifest)).toEqual([]);
    expect(verifyExport(exported, manifest, { manifestBytes: run.manifest.bytes })).toEqual([]);
    expect(verifyExport(exported, manifest, { manifestBytes: run.manifest.json })).toEqual([]);
  });

  it("accepts metadata keys in any order", () => {
    const { manifest, exported } = pair();
    exported.records[0].metadata = { author: "ops", title: "Q3 notes" };
    expect(verifyExport(exported, manifest)).toEqual([]);
  });

  it("pretty-printed manifest bytes give only the file-bytes problem", () => {
    const { manifest, exported } = pair();
    const pretty = JSON.stringify(manifest, null, 2);
    expect(verifyExport(exported, manifest, { manifestBytes: pretty })).toEqual([
      { code: "manifest_bytes", message: "manifest file bytes are not the canonical form of the manifest" },
    ]);
  });

  it("an unverified canary context gives exactly one problem", () => {
    const run = synthRun([doc1], { verified: false });
    expect(messages(verifyExport(reparse(run.exported!.document), reparse(run.manifest.document)))).toEqual([
      "manifest does not record a verified canary context window",
    ]);
  });
});

describe("verifyExport on values no JSON text makes", () => {
  it("a sparse records array of length 2^32 - 1 is unreadable at once, not walked hole by hole", () => {
    const { manifest, exported } = pair();
    exported.records = [];
    exported.records.length = 2 ** 32 - 1;
    expect(verifyExport(exported, manifest)).toEqual([
      {
        code: "export_unreadable",
        message: "cannot read export (an array of 4294967295 elements: more than the 2000000 JSON values verify holds of a document)",
      },
    ]);
    const emptied = pair();
    emptied.manifest.records = [];
    emptied.manifest.records.length = 2_000_001;
    expect(codes(verifyExport(emptied.exported, emptied.manifest))).toEqual(["manifest_unreadable"]);
  });

  it("a sparse array nested in a record is unreadable at once, and a cycle ends the walk; a genuine pair passes", () => {
    const sparse = pair();
    sparse.manifest.records[0].segments.length = 2 ** 20;
    expect(verifyExport(sparse.exported, sparse.manifest)).toEqual([
      { code: "manifest_unreadable", message: "cannot read manifest (an array with holes (a sparse array), which no JSON text makes)" },
    ]);
    sparse.manifest.records[0].segments.length = 2 ** 24;
    expect(codes(verifyExport(sparse.exported, sparse.manifest))).toEqual(["manifest_unreadable"]);
    const cyclic = pair();
    cyclic.manifest.self = cyclic.manifest;
    expect(codes(verifyExport(cyclic.exported, cyclic.manifest)).length).toBeGreaterThan(0);
    const { manifest, exported } = pair();
    expect(verifyExport(exported, manifest)).toEqual([]);
  });

  it("a genuine in-memory pair of more values than a document read from bytes may hold is still verified", () => {
    // 2,000,000 values in all, none of it sparse: the caller already holds them, so they are checked.
    const { manifest, exported } = pair();
    manifest.records[0].segments[0].verdict.padding = Array.from({ length: 2_000_000 }, () => 0);
    expect(codes(verifyExport(exported, manifest))).not.toContain("manifest_unreadable");
  });
});

describe("verifyExport catches tampering with the export", () => {
  it("one changed character of text", () => {
    const { manifest, exported } = pair();
    exported.records[0].text = "Quarterly numbers attached!";
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 0: sha256 mismatch");
    expect(found).toContain("record 0: material_sha256 mismatch");
    expect(found).toContain("record 0: segment evidence does not cover the exported material");
  });

  it("a changed metadata value, or an added metadata key", () => {
    const { manifest, exported } = pair();
    exported.records[0].metadata.title = "Q4 notes";
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: material_sha256 mismatch");
    const second = pair();
    second.exported.records[0].metadata.owner = "x";
    expect(messages(verifyExport(second.exported, second.manifest))).toContain("record 0: metadata keys mismatch");
  });

  it("a changed id or source", () => {
    const { manifest, exported } = pair();
    exported.records[0].id = "doc-2";
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 0: provenance mismatch");
    expect(found).toContain("record 0: id digest mismatch");
    exported.records[0].id = 7;
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: id must be a string or null");
  });

  it("any changed hash", () => {
    const { manifest, exported } = pair();
    exported.records[1].sha256 = "0".repeat(64);
    expect(messages(verifyExport(exported, manifest))).toEqual(["record 2: sha256 mismatch"]);
    const second = pair();
    second.exported.records[1].material_sha256 = "0".repeat(64);
    expect(messages(verifyExport(second.exported, second.manifest))).toEqual(["record 2: material_sha256 mismatch"]);
    const third = pair();
    third.exported.manifest_sha256 = "0".repeat(64);
    expect(messages(verifyExport(third.exported, third.manifest))).toEqual(["manifest_sha256 does not match the manifest"]);
  });

  it("a dropped record", () => {
    const { manifest, exported } = pair();
    exported.records.splice(1, 1);
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("admitted records missing from export: [2]");
    expect(found).toContain("export record count does not match manifest admitted count");
  });

  it("an inserted held record", () => {
    const { manifest, exported } = pair();
    const text = held.text;
    exported.records.splice(1, 0, { index: 1, id: null, source: null, sha256: sha256Hex(text), material_sha256: "0".repeat(64), metadata: {}, text });
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 1: not admitted in manifest");
    expect(found).toContain("record 1: segment evidence does not support admission");
  });

  it("a record the manifest does not have", () => {
    const { manifest, exported } = pair();
    exported.records.push({ ...exported.records[0], index: 9 });
    expect(messages(verifyExport(exported, manifest))).toContain("record 9: not in manifest");
  });

  it("reordered records", () => {
    const { manifest, exported } = pair();
    exported.records.reverse();
    expect(messages(verifyExport(exported, manifest))).toEqual(["export records are not in manifest order"]);
  });

  it("a duplicated record", () => {
    const { manifest, exported } = pair();
    exported.records.push(exported.records[0]);
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: duplicated in export");
  });

  it("extra or missing fields at the top or in a record", () => {
    const { manifest, exported } = pair();
    exported.extra = 1;
    exported.records[0].note = "x";
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("export has unexpected or missing top-level fields");
    expect(found).toContain("record 0: unexpected or missing fields");
  });

  it("schema names and the policy name", () => {
    const { manifest, exported } = pair();
    exported.schema = "x";
    exported.manifest_schema = "y";
    exported.policy_name = "lax/v1";
    const found = messages(verifyExport(exported, manifest));
    expect(found).toEqual(expect.arrayContaining(["export schema mismatch", "manifest schema mismatch", "policy name mismatch"]));
  });

  it("invalid text or metadata", () => {
    const { manifest, exported } = pair();
    exported.records[0].text = "bad \ud800";
    exported.records[1].metadata = { k: 5 };
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 0: text missing or invalid");
    expect(found).toContain("record 2: metadata invalid");
  });
});

describe("verifyExport catches a re-hashed, forged manifest", () => {
  it("a held record forged into an admitted one", () => {
    const { manifest, exported } = pair();
    const r = manifest.records[1];
    Object.assign(r, { admission: "admitted", hold_reasons: [], coverage: "complete", detection: "none", id: null, source: null, metadata_keys: [] });
    manifest.counts = { ...manifest.counts, admitted: 3, held: 0 };
    exported.records.splice(1, 0, { index: 1, id: null, source: null, sha256: r.sha256, material_sha256: r.material_sha256, metadata: {}, text: held.text });
    rehash(manifest, exported);
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 1: segment evidence does not support admission");
    expect(found).toContain("record 1: recorded state does not match its segments");
  });

  it("a forged segment state on an admitted record", () => {
    const { manifest, exported } = pair();
    manifest.records[0].segments[1].verdict.canary_risk_score = 0.5; // a flag, recorded as pass
    rehash(manifest, exported);
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("record 0: segment evidence does not support admission");
  });

  it("a short segments_checked", () => {
    const { manifest, exported } = pair();
    manifest.records[0].segments_checked = 1;
    rehash(manifest, exported);
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: segment evidence does not support admission");
  });

  it("chars_total off by one either way", () => {
    for (const delta of [1, -1]) {
      const { manifest, exported } = pair();
      manifest.records[0].chars_total += delta;
      manifest.records[0].chars_covered += delta;
      rehash(manifest, exported);
      expect(messages(verifyExport(exported, manifest))).toContain("record 0: segment evidence does not cover the exported material");
    }
  });

  it("an edited segment_chars, or an edited segment field", () => {
    const { manifest, exported } = pair();
    manifest.policy.segment_chars = 20;
    rehash(manifest, exported);
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: segment evidence does not cover the exported material");
    for (const field of ["start", "end", "index", "kind", "sha256"] as const) {
      const p = pair();
      const s = p.manifest.records[0].segments[1];
      s[field] = field === "kind" ? "metadata" : field === "sha256" ? "0".repeat(64) : s[field] + 1;
      rehash(p.manifest, p.exported);
      expect(messages(verifyExport(p.exported, p.manifest)), field).toContain("record 0: segment evidence does not cover the exported material");
    }
  });

  it("bumped counts", () => {
    const { manifest, exported } = pair();
    manifest.counts.by_reason.blocked += 1;
    rehash(manifest, exported);
    expect(messages(verifyExport(exported, manifest))).toEqual(["manifest counts do not match its records"]);
    const second = pair();
    second.manifest.counts.admitted += 1;
    rehash(second.manifest, second.exported);
    expect(messages(verifyExport(second.exported, second.manifest))).toEqual(
      expect.arrayContaining(["export record count does not match manifest admitted count", "manifest counts do not match its records"]),
    );
  });

  it("records_total, run status, export_requested and record indices", () => {
    const { manifest, exported } = pair();
    manifest.run.records_total = 4;
    manifest.run.status = "partial";
    manifest.run.export_requested = false;
    manifest.records[2].index = 1;
    rehash(manifest, exported);
    const found = messages(verifyExport(exported, manifest));
    expect(found).toEqual(
      expect.arrayContaining([
        "manifest records_total does not match the record list",
        "manifest run is not complete",
        "manifest does not record that an export was requested",
        "manifest record at position 2: duplicate or out-of-order index",
      ]),
    );
  });

  it("a held record carrying a plaintext id, source or metadata keys is a problem, whatever its digests say; the genuine one is not", () => {
    const { manifest, exported } = pair();
    expect(manifest.records[1].admission).toBe("held");
    expect(codes(verifyExport(exported, manifest))).not.toContain("held_record_labels");
    for (const [key, value] of [
      ["id", "zzz"],
      ["source", "wiki"],
      ["metadata_keys", ["a"]],
    ] as const) {
      const m = structuredClone(manifest);
      const e = structuredClone(exported);
      m.records[1][key] = value;
      if (key === "metadata_keys") m.records[1].metadata_key_count = 1;
      rehash(m, e);
      expect(messages(verifyExport(e, m)), key).toContain("record 1: a held record must not carry its id, source or metadata keys in plaintext");
    }
  });

  it("a layer whose passed does not follow its status, layers missing or out of order, or a classified segment with an error, is a state mismatch; the genuine record is not", () => {
    const { manifest, exported } = pair();
    const segment = manifest.records[0].segments[0];
    expect(segment.verdict.layers.length).toBeGreaterThan(0);
    expect(codes(verifyExport(exported, manifest))).not.toContain("record_state_mismatch");
    const forgeries: Array<[string, (s: Json) => void]> = [
      ["status failed, passed true", (s) => Object.assign(s.verdict.layers.at(-1), { status: "failed", passed: true })],
      ["status passed, passed false", (s) => Object.assign(s.verdict.layers[0], { passed: false })],
      ["status skipped, passed true", (s) => Object.assign(s.verdict.layers.at(-1), { status: "skipped" })],
      ["an error on a pass", (s) => Object.assign(s, { error: "x" })],
      ["the canary layer removed", (s) => s.verdict.layers.pop()],
      ["the layers swapped", (s) => s.verdict.layers.reverse()],
      ["the structural layer removed while the pipeline says it ran", (s) => s.verdict.layers.shift()],
    ];
    for (const [name, forge] of forgeries) {
      const m = structuredClone(manifest);
      const e = structuredClone(exported);
      forge(m.records[0].segments[0]);
      rehash(m, e);
      expect(codes(verifyExport(e, m)), name).toContain("record_state_mismatch");
    }
  });

  it("a malformed record carries no digests, characters, segments or metadata keys; an over-budget or checked one carries both digests", () => {
    const run = synthRun([doc1, { malformed: { text: "some text", detail: "record 1: metadata must be an object" } }, doc3]);
    const manifest: Json = reparse(run.manifest.document);
    const exported: Json = reparse(run.exported?.document);
    expect(codes(verifyExport(exported, manifest))).toEqual([]);
    // Its length counts the text it had: that is not a forgery.
    expect(manifest.records[1].length).toBe(9);
    for (const [name, forge] of [
      ["a sha256 on a malformed record", (r: Json) => Object.assign(r, { sha256: "a".repeat(64) })],
      ["a material_sha256 on a malformed record", (r: Json) => Object.assign(r, { material_sha256: "a".repeat(64) })],
      ["characters on a malformed record", (r: Json) => Object.assign(r, { chars_total: 9 })],
      ["segments planned for a malformed record", (r: Json) => Object.assign(r, { segments_total: 1 })],
      ["metadata keys on a malformed record", (r: Json) => Object.assign(r, { metadata_key_count: 2 })],
    ] as const) {
      const m = structuredClone(manifest);
      const e = structuredClone(exported);
      forge(m.records[1]);
      rehash(m, e);
      expect(messages(verifyExport(e, m)), name).toContain("record 1: recorded state does not match its segments");
    }
    // A checked record without its digests.
    const m = structuredClone(manifest);
    const e = structuredClone(exported);
    m.records[0].material_sha256 = "";
    rehash(m, e);
    expect(messages(verifyExport(e, m))).toContain("record 0: recorded state does not match its segments");
  });

  it("a forged state on a held record is caught from the manifest alone", () => {
    const { manifest, exported } = pair();
    manifest.records[1].segments[0].state = "flag";
    manifest.records[1].hold_reasons = ["flagged"];
    manifest.records[1].detection = "flag";
    manifest.counts = { ...manifest.counts };
    rehash(manifest, exported);
    expect(codes(verifyExport(exported, manifest))).toContain("record_state_mismatch");
  });
});

describe("verifyExport catches a manifest that contradicts itself", () => {
  it("a pipeline edited to say the canary was off, while records are admitted", () => {
    const { manifest, exported } = pair();
    manifest.pipeline.canary_enabled = false;
    rehash(manifest, exported);
    expect(verifyExport(exported, manifest)).toContainEqual({
      code: "pipeline_inconsistent",
      message: "manifest records the canary disabled but admits records",
    });
  });

  it("a run with the canary off that admits nothing is not a contradiction", () => {
    const run = synthRun([held]);
    const manifest = reparse(run.manifest.document) as Json;
    expect(manifest.counts.admitted).toBe(0);
    manifest.pipeline.canary_enabled = false;
    expect(codes(verifyManifestOnly(manifest))).not.toContain("pipeline_inconsistent");
  });

  it("a policy edited below what its checked records hold: more segments or more metadata keys than it allows", () => {
    const { manifest, exported } = pair();
    expect(manifest.records[0].segments.length).toBeGreaterThan(1);
    expect(manifest.records[0].metadata_key_count).toBe(2);
    for (const [key, value] of [
      ["max_segments", 1],
      ["max_metadata_keys", 1],
    ] as const) {
      const m = structuredClone(manifest);
      const e = structuredClone(exported);
      m.policy[key] = value;
      rehash(m, e);
      expect(messages(verifyExport(e, m)), key).toContain("record 0: recorded state does not match its segments");
    }
    // At the record's own counts, nothing is wrong.
    const m = structuredClone(manifest);
    const e = structuredClone(exported);
    m.policy.max_segments = manifest.records[0].segments_total;
    m.policy.max_metadata_keys = 2;
    rehash(m, e);
    expect(codes(verifyExport(e, m))).not.toContain("record_state_mismatch");
  });

  it("a pipeline edited to say the structural layer was off, while verdicts carry it", () => {
    const { manifest, exported } = pair();
    expect(manifest.records[0].segments[0].verdict.layers.map((l: { name: string }) => l.name)).toContain("structural_filter");
    manifest.pipeline.structural_filter = false;
    rehash(manifest, exported);
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: recorded state does not match its segments");
  });

  it("a detail on a checked record, or none on a record held unchecked", () => {
    const { manifest, exported } = pair();
    manifest.records[0].detail = "x";
    rehash(manifest, exported);
    expect(messages(verifyExport(exported, manifest))).toContain("record 0: recorded state does not match its segments");
    const malformed = synthRun([{ malformed: { text: "", detail: "record 0: text is empty" } }], { exportRequested: false });
    const unchecked = reparse(malformed.manifest.document) as Json;
    expect(unchecked.records[0].segments).toEqual([]);
    expect(verifyManifestOnly(unchecked)).toEqual([]);
    unchecked.records[0].detail = null;
    expect(messages(verifyManifestOnly(unchecked))).toContain("record 0: recorded state does not match its segments");
  });
});

describe("verifyExport and verifyManifestOnly refuse an option they do not know", () => {
  it("a misspelt refuseAllowlisted or a pin is a UsageError naming it, not a check silently skipped", () => {
    const run = synthRun([{ id: "a", source: null, metadata: {}, text: "Admitted text." }]);
    const [e, m] = [run.exported!.bytes, run.manifest.bytes];
    expect(verifyExport(e, m, { manifestBytes: m, refuseAllowlisted: true })).toEqual([]);
    expect(() => verifyExport(e, m, { refuseAllowlist: true } as never)).toThrow(
      /unknown verifyExport option "refuseAllowlist"; did you mean 'refuseAllowlisted'\?/,
    );
    expect(() => verifyExport(e, m, { expectManifestSha256: "0".repeat(64) } as never)).toThrow(/use verifyFiles with expectManifestSha256/);
    expect(() => verifyManifestOnly(m, { pin: "x" } as never)).toThrow(/unknown verifyManifestOnly option "pin"/);
  });
});

describe("verifyExport never throws on hostile input", () => {
  it("wrong top-level types", () => {
    expect(verifyExport(null, {})).toEqual([{ code: "export_not_object", message: "export is not an object" }]);
    expect(verifyExport({}, [])).toEqual([{ code: "manifest_not_object", message: "manifest is not an object" }]);
    // Strings are document text: "x" and "y" are not JSON, so both documents are unreadable.
    expect(verifyExport("x", "y").map((p) => p.code)).toEqual(["export_unreadable", "manifest_unreadable"]);
  });

  it("an export file that is JSON but not an object is export_not_object alone, from text, from values and from files", async () => {
    const { manifest } = pair();
    const manifestText = canonicalJsonUnchecked(manifest);
    const dir = await mkdtemp(join(tmpdir(), "lc-export-not-object-"));
    try {
      await writeFile(join(dir, "manifest.json"), manifestText);
      for (const text of ["[]", "null", '"s"', "1", "[{}]"]) {
        const only = [{ code: "export_not_object", message: "export is not an object" }];
        expect(verifyExport(text, manifestText)).toEqual(only);
        // A string given as a value is a document's text (see above), so only the others are values.
        const value: unknown = JSON.parse(text);
        if (typeof value !== "string") expect(verifyExport(value, manifest)).toEqual(only);
        await writeFile(join(dir, "export.json"), text);
        const files = await verifyFiles({ manifest: join(dir, "manifest.json"), export: join(dir, "export.json") });
        expect(files.problems).toEqual(only);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("huge numbers, wrong shapes, deep nesting and non-object items", () => {
    const { manifest, exported } = pair();
    manifest.run.records_total = JSON.parse("1e400");
    manifest.records.push(5, { index: true }, { index: 10 ** 400 });
    let deep: Json = 1;
    for (let i = 0; i < 50_000; i++) deep = [deep];
    manifest.records[0].segments[0].verdict = deep;
    exported.records.push(null, { index: "0" }, { index: 2 ** 80 });
    const problems = verifyExport(exported, manifest, { manifestBytes: 42 as never });
    expect(problems.length).toBeGreaterThan(0);
    expect(messages(problems)).toEqual(
      expect.arrayContaining([
        "manifest record at position 3: malformed",
        "manifest record at position 4: malformed",
        "export record at position 2: malformed",
        "manifest file bytes are not the canonical form of the manifest",
      ]),
    );
  });

  it("records that are not lists", () => {
    const { manifest, exported } = pair();
    manifest.records = "nope";
    exported.records = {};
    const found = messages(verifyExport(exported, manifest));
    expect(found).toContain("manifest records missing");
    expect(found.at(-1)).toBe("export records missing");
  });

  it("an object whose properties throw becomes a problem, not an exception", () => {
    const { manifest } = pair();
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new RangeError("boom");
        },
      },
    );
    expect(() => verifyExport(hostile, manifest)).not.toThrow();
    expect(codes(verifyExport(hostile, manifest))).toContain("verify_failed");
  });

  it("problems never echo record text, ids or metadata values", () => {
    const run = synthRun([{ id: "SECRET-ID", source: "SECRET-SRC", metadata: { k: "SECRET-V" }, text: "SECRET TEXT" }]);
    const exported: Json = reparse(run.exported!.document);
    exported.records[0].text = "SECRET TEXT 2";
    exported.records[0].id = "SECRET-ID-2";
    expect(JSON.stringify(verifyExport(exported, reparse(run.manifest.document)))).not.toContain("SECRET");
  });
});

describe("verifyManifestOnly", () => {
  it("a genuine manifest with an export requested reports the missing export only", () => {
    const { manifest } = pair();
    expect(verifyManifestOnly(manifest)).toEqual([
      { code: "export_missing", message: "manifest records that an export was produced, but no export was given" },
    ]);
    const noExport = synthRun([doc1, held], { exportRequested: false });
    expect(verifyManifestOnly(reparse(noExport.manifest.document), { manifestBytes: noExport.manifest.bytes })).toEqual([]);
  });

  it("checks the file bytes, counts, states and plans without an export", () => {
    const run = synthRun([doc1, held], { exportRequested: false, policy: resolvePolicy({ segment_chars: 10, segment_overlap: 2, max_segments: 20 }) });
    const manifest: Json = reparse(run.manifest.document);
    expect(verifyManifestOnly(manifest)).toEqual([]);
    expect(codes(verifyManifestOnly(manifest, { manifestBytes: JSON.stringify(manifest, null, 1) }))).toEqual(["manifest_bytes"]);
    manifest.counts.held = 5;
    manifest.records[0].segments[2].end += 1;
    manifest.records[1].segments[0].exercised = false; // a canary block is exercised
    expect(codes(verifyManifestOnly(manifest))).toEqual(expect.arrayContaining(["counts_mismatch", "segment_plan_mismatch", "record_state_mismatch"]));
  });

  it("reports an unverified context and a non-object", () => {
    const run = synthRun([doc1], { verified: false, exportRequested: false });
    expect(messages(verifyManifestOnly(reparse(run.manifest.document)))).toEqual(["manifest does not record a verified canary context window"]);
    expect(verifyManifestOnly([])).toEqual([{ code: "manifest_not_object", message: "manifest is not an object" }]);
  });
});
