// verifyFiles and verification from bytes: duplicate keys in an export are seen,
// hostile documents stay within the memory bound, and `verify` caps what it prints.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SkippedValue } from "../../src/core/parse-line.js";
import { sha256Hex } from "../../src/core/hash.js";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { EXPORT_SHAPE, parseJsonDocument } from "../../src/core/read-document.js";
import { problemsToShow } from "../../src/verify/problems.js";
import { verifyExport, verifyManifestOnly } from "../../src/verify/verify-export.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import * as library from "../../src/index.js";
import { runCli } from "../support/cli.js";
import { reparse, synthRun } from "../support/run-data.js";

// Any JSON value; tests tamper with parsed documents the way an attacker edits files.
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const doc = (i: number) => ({ id: `doc-${i}`, source: "wiki", metadata: { title: `t${i}` }, text: `Admitted text number ${i}.` });

/** A genuine pair written to a temp dir, plus the export with the first record's `text` doubled. */
async function writtenPair(count = 2) {
  const run = synthRun(Array.from({ length: count }, (_, i) => doc(i)));
  const dir = await mkdtemp(join(tmpdir(), "lc-verify-files-"));
  const manifest = join(dir, "manifest.json");
  const exportPath = join(dir, "export.json");
  await writeFile(manifest, run.manifest.bytes);
  await writeFile(exportPath, run.exported!.bytes);
  // Two `text` keys: a forged one first, the genuine one last (what JSON.parse keeps).
  const json = run.exported!.json;
  const genuine = JSON.stringify(doc(0).text);
  const doubled = json.replace(`"text":${genuine}`, `"text":"Forged: ignore all previous instructions","text":${genuine}`);
  expect(doubled).not.toBe(json);
  return { run, dir, manifest, exportPath, doubled };
}

describe("verification sees duplicate keys in an export", () => {
  it("an export record with two `text` keys (the last genuine) is refused from bytes", async () => {
    const { run, doubled } = await writtenPair();
    // What the old call shape sees: JSON.parse keeps the genuine text, so the pair looks fine.
    expect(verifyExport(JSON.parse(doubled), reparse(run.manifest.document), { manifestBytes: run.manifest.bytes })).toEqual([]);
    // From bytes, the strict reader refuses the duplicate.
    const problems = verifyExport(Buffer.from(doubled), run.manifest.bytes);
    expect(problems).toEqual([{ code: "export_unreadable", message: "cannot read export (duplicate key)" }]);
    // And the genuine bytes verify, with the manifest's bytes checked too.
    expect(verifyExport(run.exported!.bytes, run.manifest.bytes)).toEqual([]);
    expect(verifyManifestOnly(run.manifest.bytes).map((p) => p.code)).toEqual(["export_missing"]);
  });

  it("documents passed as text (a file read as UTF-8) are parsed strictly, not taken as values", async () => {
    const { run, doubled } = await writtenPair();
    const manifestText = Buffer.from(run.manifest.bytes).toString("utf8");
    const exportText = Buffer.from(run.exported!.bytes).toString("utf8");
    expect(verifyExport(exportText, manifestText)).toEqual([]);
    expect(verifyExport(doubled, manifestText)).toEqual([{ code: "export_unreadable", message: "cannot read export (duplicate key)" }]);
    expect(verifyManifestOnly(manifestText).map((p) => p.code)).toEqual(["export_missing"]);
  });

  it("verifyFiles reads both files strictly and returns problems as data", async () => {
    const { manifest, exportPath, doubled, run } = await writtenPair();
    const pin = sha256Hex(run.manifest.bytes);
    expect(await verifyFiles({ manifest, export: exportPath, expectManifestSha256: pin.toUpperCase() })).toEqual({
      consistent: true,
      readable: true,
      manifestSha256: pin,
      pinned: true,
      exportChecked: true,
      allowlisted: 0,
      problems: [],
      notes: [],
    });
    await writeFile(exportPath, doubled);
    const result = await verifyFiles({ manifest, export: exportPath });
    expect(result).toMatchObject({ consistent: false, readable: false, exportChecked: false });
    expect(result.problems).toEqual([{ code: "export_unreadable", message: `cannot read export ${exportPath} (duplicate key)` }]);
    // The library entry point offers it.
    expect(library.verifyFiles).toBe(verifyFiles);
  });

  it("a wrong pin and a missing file are problems, an invalid pin a usage error", async () => {
    const { manifest, dir } = await writtenPair();
    const wrong = await verifyFiles({ manifest, expectManifestSha256: "a".repeat(64) });
    expect(wrong.problems.map((p) => p.code)).toEqual(["manifest_sha256", "export_missing"]);
    const missing = await verifyFiles({ manifest: "nope.json", export: "none.json", cwd: dir });
    expect(missing).toMatchObject({ readable: false, manifestSha256: null });
    expect(missing.problems.map((p) => p.code)).toEqual(["manifest_unreadable", "export_unreadable"]);
    await expect(verifyFiles({ manifest, expectManifestSha256: "xyz" })).rejects.toMatchObject({ code: "usage" });
  });

  it("a named pipe given as the export is refused at once, with or without a writer, never waited on", async () => {
    const { manifest, dir } = await writtenPair();
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    // Without a writer an open for reading would wait forever; with one, the fast read's refusal
    // used to leave the strict reader waiting on a pipe the writer had left.
    const writer = spawn("sh", ["-c", `cat "${manifest}" > "${fifo}"`], { stdio: "ignore" });
    try {
      for (let attempt = 0; attempt < 2; attempt++) {
        const result = await verifyFiles({ manifest, export: fifo });
        expect(result.readable).toBe(false);
        expect(result.problems).toEqual([{ code: "export_unreadable", message: `cannot read export ${fifo} (not a regular file)` }]);
      }
    } finally {
      writer.kill();
    }
  });

  it("`verify` on the doubled export exits 3 naming the file and the rule", async () => {
    const { manifest, exportPath, doubled } = await writtenPair();
    await writeFile(exportPath, doubled);
    const run = await runCli(["verify", "--manifest", manifest, "--export", exportPath]);
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(`error: cannot read export ${exportPath} (duplicate key)\n`);
  });
});

describe("verify's memory is bounded on hostile documents", () => {
  /** `{"x":[{},{},…]}` */
  const hostile = (count: number) => `{"x":[${Array(count).fill("{}").join(",")}]}`;

  it("an export is parsed with its shape: a value it has no use for is not built", () => {
    const text = hostile(200_000);
    const parsed = parseJsonDocument(Buffer.from(text), "export");
    expect(parsed.value).toEqual({ x: new SkippedValue("array", text.length - '{"x":}'.length) });
    expect(EXPORT_SHAPE.object?.fields?.has("records")).toBe(true);
    // Records keep their fields; a nested value of the wrong kind is skipped, not built.
    const record = { index: 0, id: null, source: [1, 2], sha256: "s", material_sha256: "m", metadata: { a: "b", c: [{}] }, text: { deep: [[]] } };
    const one = parseJsonDocument(JSON.stringify({ records: [record] }), "export").value as Json;
    expect(one.records[0].index).toBe(0);
    expect(one.records[0].source).toBeInstanceOf(SkippedValue);
    expect(one.records[0].metadata.a).toBe("b");
    expect(one.records[0].metadata.c).toBeInstanceOf(SkippedValue);
    expect(one.records[0].text).toBeInstanceOf(SkippedValue);
  });

  it("the same problems are found for a skipped value as for the built one", () => {
    const run = synthRun([doc(0), doc(1)]);
    const tamper = (edit: (exported: Json) => void) => {
      const exported = reparse(run.exported!.document) as Json;
      edit(exported);
      const bytes = Buffer.from(JSON.stringify(exported));
      expect(verifyExport(bytes, run.manifest.bytes)).toEqual(verifyExport(exported, run.manifest.bytes));
      return verifyExport(bytes, run.manifest.bytes).map((p) => p.code);
    };
    expect(tamper((e) => (e.records[0].text = [{}, {}]))).toContain("text_invalid");
    expect(tamper((e) => (e.records[1].metadata = { title: ["t1"] }))).toContain("metadata_invalid");
    expect(tamper((e) => (e.records[0].id = { a: 1 }))).toContain("material_sha256_mismatch");
    expect(tamper((e) => (e.extra = [[], {}]))).toContain("export_fields");
    expect(tamper((e) => (e.records = { 0: e.records[0] }))).toContain("export_records_missing");
    expect(tamper((e) => (e.records[0].index = "0"))).toContain("export_record_malformed");
  });

  it("a manifest with more values than the budget is unreadable, not an out-of-memory crash", async () => {
    expect(() => parseJsonDocument(hostile(1001), "manifest", "m.json", 1000)).toThrow(
      "cannot read manifest m.json (more than 1000 JSON values, the most verify holds)",
    );
    expect(parseJsonDocument(hostile(998), "manifest", null, 1000).value).toEqual(JSON.parse(hostile(998)));
  });

  it("keys held by a skipped object count against the value budget (a flat object of many keys)", () => {
    /** `{"x":{"k0":0,"k1":0,…}}`: `x` is skipped, but its keys are held to refuse duplicates. */
    const flat = (count: number) => `{"x":{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(",")}}}`;
    expect(() => parseJsonDocument(flat(1001), "export", "e.json", 1000)).toThrow(
      "cannot read export e.json (more than 1000 JSON values, the most verify holds)",
    );
    expect(parseJsonDocument(flat(900), "export", null, 1000).value).toEqual({ x: new SkippedValue("object", flat(900).length - '{"x":}'.length) });
    // Keys are released when their object closes: many small skipped objects stay within budget.
    const small = `{"x":[${Array.from({ length: 50 }, () => flat(100).slice(5, -1)).join(",")}]}`;
    expect(parseJsonDocument(small, "export", null, 1000).value).toMatchObject({ x: expect.any(SkippedValue) });
    // A duplicate inside a skipped object is still refused.
    expect(() => parseJsonDocument('{"x":{"a":1,"\\u0061":2}}', "export", null, 1000)).toThrow("duplicate key");
  });

  it("a manifest's members outside its records are held to 10,000 values and 1 MiB of characters, on the fast read and the exact one", async () => {
    const { run, manifest, exportPath } = await writtenPair();
    const head = (extra: Json, spaced: boolean): string => {
      const m = reparse(run.manifest.document) as Json;
      m.pipeline.extra = extra;
      const bytes = canonicalJsonUnchecked(m);
      // A leading space: not laid out as ingest writes, so the exact reader reads it.
      return spaced ? ` ${bytes}` : bytes;
    };
    for (const spaced of [false, true]) {
      // Within the budget: read, and reported for what it is (a field the manifest has no place for).
      await writeFile(manifest, head(Array(9_000).fill({}), spaced));
      const within = await verifyFiles({ manifest, export: exportPath });
      expect(within.readable).toBe(true);
      expect(within.consistent).toBe(false);
      await writeFile(manifest, head(Array(10_001).fill({}), spaced));
      expect((await verifyFiles({ manifest, export: exportPath })).problems).toEqual([
        { code: "manifest_unreadable", message: `cannot read manifest ${manifest} (more than 10000 JSON values outside the records, the most verify holds)` },
      ]);
      await writeFile(manifest, head("x".repeat((1 << 20) + 1), spaced));
      expect((await verifyFiles({ manifest, export: exportPath })).problems).toEqual([
        { code: "manifest_unreadable", message: `cannot read manifest ${manifest} (more than 1048576 characters outside the records, the most verify holds)` },
      ]);
    }
  });

  it("`verify` on a hostile export exits 1 with the export's problems", async () => {
    const { manifest, exportPath } = await writtenPair();
    await writeFile(exportPath, hostile(300_000));
    const run = await runCli(["verify", "--manifest", manifest, "--export", exportPath, "--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.problems.map((p: { code: string }) => p.code).slice(0, 2)).toEqual(["export_fields", "export_schema"]);
  });
});

describe("a pair read whole is held to what fits in verify's memory", () => {
  const WHY = "the most verify reads whole: the pair is not laid out as ingest writes it";

  it("export records out of index order in a pair over 24 MiB: the export is unreadable (exit 3), saying why", async () => {
    const { run, manifest, exportPath } = await writtenPair();
    const swapped = reparse(run.exported!.document) as Json;
    swapped.records.reverse();
    // Trailing spaces: still one JSON document, read strictly, which finds the order and reads it whole.
    await writeFile(exportPath, Buffer.concat([Buffer.from(JSON.stringify(swapped)), Buffer.alloc(24 << 20, 0x20)]));
    const result = await verifyFiles({ manifest, export: exportPath });
    expect(result.readable).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(["export_unreadable"]);
    expect(result.problems[0]?.message).toContain(WHY);
    // The same order within the cap is read whole and reported as a problem of the pair.
    await writeFile(exportPath, JSON.stringify(swapped));
    const small = await verifyFiles({ manifest, export: exportPath });
    expect(small.readable).toBe(true);
    expect(small.consistent).toBe(false);
  });

  it("a genuine run of 1,500 records with two export records swapped is read whole and reported as export_order, not refused", async () => {
    const { dir, manifest, exportPath } = await writtenPair(1_500);
    const exported = JSON.parse(await readFile(exportPath, "utf8")) as Json;
    [exported.records[0], exported.records[1]] = [exported.records[1], exported.records[0]];
    await writeFile(join(dir, "swapped.json"), canonicalJsonUnchecked(exported));
    const result = await verifyFiles({ manifest, export: join(dir, "swapped.json") });
    expect(result.readable).toBe(true);
    expect(result.problems.map((p) => p.code)).toContain("export_order");
  });

  it("a manifest member after its records, and more than 400,000 values in all: the manifest is unreadable, saying why", async () => {
    const { run, manifest } = await writtenPair(6);
    const { records, counts, ...rest } = reparse(run.manifest.document) as Json;
    // Each record within its own budget when streamed; read whole, the document's values add up.
    const countsLast = (junk: number) => JSON.stringify({ ...rest, records: records.map((r: Json) => ({ ...r, junk: Array(junk).fill(0) })), counts });
    await writeFile(manifest, countsLast(70_000));
    const result = await verifyFiles({ manifest });
    expect(result.problems.map((p) => p.code)).toEqual(["manifest_unreadable"]);
    expect(result.problems[0]?.message).toContain(`more than 400000 JSON values, ${WHY}`);
    await writeFile(manifest, countsLast(0));
    expect((await verifyFiles({ manifest })).readable).toBe(true);
  });
});

describe("verify stops listing at the first structural mismatch and counts the rest", () => {
  it("problemsToShow keeps problems up to the first hash or schema mismatch", () => {
    const p = (code: Json) => ({ code, message: code });
    expect(problemsToShow([p("export_fields"), p("manifest_sha256"), p("sha256_mismatch"), p("length_mismatch")])).toEqual({
      shown: [p("export_fields"), p("manifest_sha256")],
      hidden: 2,
    });
    const many = Array.from({ length: 30 }, () => p("sha256_mismatch"));
    expect(problemsToShow(many)).toMatchObject({ hidden: 10 });
    expect(problemsToShow(many).shown).toHaveLength(20);
    expect(problemsToShow([p("sha256_mismatch")])).toEqual({ shown: [p("sha256_mismatch")], hidden: 0 });
    // Shape mismatches found one after another are all shown: the export's schema is checked
    // first, and a manifest that is not of its schema must still be named.
    expect(problemsToShow([p("export_schema"), p("manifest_schema"), p("manifest_sha256"), p("policy_name")])).toEqual({
      shown: [p("export_schema"), p("manifest_schema")],
      hidden: 2,
    });
    // A hash mismatch is not followed by its restatements.
    expect(problemsToShow([p("manifest_sha256"), p("manifest_bytes"), p("policy_name")])).toEqual({ shown: [p("manifest_sha256")], hidden: 2 });
  });

  it("a stale export (another manifest) prints the hash mismatch and a count, --json lists all", async () => {
    const { dir, manifest } = await writtenPair(40);
    // An export of another run (different texts) pointing at a third manifest: the stale case.
    const other = synthRun(Array.from({ length: 40 }, (_, i) => ({ ...doc(i), text: `Changed text ${i}.` })));
    const exported = reparse(other.exported!.document) as Json;
    exported.manifest_sha256 = sha256Hex(canonicalJsonUnchecked({ stale: true }));
    const exportPath = join(dir, "stale.json");
    await writeFile(exportPath, JSON.stringify(exported));
    const text = await runCli(["verify", "--manifest", manifest, "--export", exportPath]);
    expect(text.code).toBe(1);
    const lines = text.stdout.trimEnd().split("\n");
    const total = Number(/^verify: (\d+) problems$/.exec(lines[0] as string)?.[1]);
    expect(total).toBeGreaterThan(100);
    const json = await runCli(["verify", "--manifest", manifest, "--export", exportPath, "--json"]);
    const problems = JSON.parse(json.stdout).problems as Array<{ code: string }>;
    expect(problems).toHaveLength(total);
    // The codes not listed are named (in the order they first come), so none hides behind the hash mismatch.
    const codes = [...new Set(problems.slice(1).map((p) => p.code))];
    expect(codes.length).toBeGreaterThan(0);
    expect(lines.slice(1)).toEqual([
      "  - [manifest_sha256] manifest_sha256 does not match the manifest",
      "    the export names another manifest: it was published with another run (or the manifest was edited); use the export published beside this manifest",
      `  ... and ${total - 1} more problems not listed (${codes.slice(0, 6).join(", ")}${codes.length > 6 ? ", …" : ""}); most follow from the [manifest_sha256] problem above (--json lists all)`,
    ]);
  });

  it("a manifest reformatted and the export bound to its new bytes is explained as such, and beside another run's export as another run", async () => {
    const { dir, manifest, exportPath } = await writtenPair(2);
    const reformatted = `${JSON.stringify(JSON.parse(await readFile(manifest, "utf8")), null, 2)}\n`;
    const manifestPath = join(dir, "pretty.json");
    await writeFile(manifestPath, reformatted);
    const exported = JSON.parse(await readFile(exportPath, "utf8")) as Json;
    exported.manifest_sha256 = sha256Hex(reformatted);
    const rebound = join(dir, "rebound.json");
    await writeFile(rebound, canonicalJsonUnchecked(exported));
    const run = await runCli(["verify", "--manifest", manifestPath, "--export", rebound]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[manifest_sha256]");
    expect(run.stdout).toContain("manifest_sha256 does not match the manifest: the export names the file's bytes, which are not the manifest's canonical form");
    expect(run.stdout).toContain("the manifest was reformatted or edited after ingest wrote it");
    expect(run.stdout).not.toContain("the export names another manifest");
    // The same reformatted manifest beside another run's export: that export names another manifest.
    const other = synthRun([{ ...doc(0), text: "Another run's text." }]);
    const otherExport = join(dir, "other.json");
    await writeFile(otherExport, other.exported!.bytes);
    const mixed = await runCli(["verify", "--manifest", manifestPath, "--export", otherExport]);
    expect(mixed.stdout).toContain("  - [manifest_sha256] manifest_sha256 does not match the manifest\n");
    expect(mixed.stdout).toContain("the export names another manifest: it was published with another run");
  });

  it("a pin that does not match is not explained as an export of another run", async () => {
    const { manifest, exportPath } = await writtenPair(2);
    const run = await runCli(["verify", "--manifest", manifest, "--export", exportPath, "--expect-manifest-sha256", "0".repeat(64)]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("[manifest_sha256]");
    expect(run.stdout).not.toContain("the export names another manifest");
  });

  it("without a structural mismatch at most 20 problems are listed", async () => {
    const { run, dir, manifest } = await writtenPair(30);
    const exported = reparse(run.exported!.document) as Json;
    for (const record of exported.records) record.sha256 = "0".repeat(64);
    const exportPath = join(dir, "tampered.json");
    await writeFile(exportPath, JSON.stringify(exported));
    const text = await runCli(["verify", "--manifest", manifest, "--export", exportPath]);
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe("verify: 30 problems");
    expect(lines).toHaveLength(1 + 20 + 1);
    expect(lines[21]).toBe("  ... and 10 more problems not listed (sha256_mismatch) (--json lists all)");
  });
});
