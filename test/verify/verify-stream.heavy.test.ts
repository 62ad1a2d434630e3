// verify-stream.test.ts's agreement properties (verify-stream-properties.ts) with 5- and 7-byte reads,
// which split every kind of token across reads, but for the tampered documents, which
// verify-stream-tampered.heavy.test.ts checks on the other core; and the per-record value budget.
// Heavy: a read per few bytes makes each pair cost about ten times what the larger reads of the
// normal suite do (about 50 s for these three on a loaded 2-core machine), and the budget test writes and reads manifests of two million values (2.4 s on
// a quiet machine, 10 to 15 s at load average 15). And the CLI's stderr line for a pair of 64 MiB
// read again by the strict reader, which needs a pair that large (64 MiB of leading spaces here).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { canonicalJsonUnchecked } from "../../src/core/canonical.js";
import { resolvePolicy } from "../../src/documents/policy.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import { runCli } from "../support/cli.js";
import { synthRun } from "../support/run-data.js";
import { makeRun, tempDir, verifyStreamProperties, type Json } from "./verify-stream-properties.js";

describe("verifyFiles streaming the files in reads of a few bytes agrees with the verifier fed the documents from memory", () => {
  verifyStreamProperties([5, 7], ["genuine pairs", "allow-listed admissions", "tampered bytes"]);
});

describe("verifyFiles holds one record of a manifest to its value budget", () => {
  it("one record over the per-record budget is unreadable, naming the rule", async () => {
    const dir = await tempDir();
    const run = makeRun([{ id: "a", source: null, metadata: {}, text: "one" }], false);
    const m = structuredClone(run.manifest.document) as Json;
    const exportPath = join(dir, "export.json");
    const manifestPath = join(dir, "manifest.json");
    await writeFile(exportPath, run.exported!.bytes);
    // Two records of 1,000,001 values each are fine (each has its own budget, together over it)…
    m.records[0].junk = Array.from({ length: 1_000_001 }, () => 0);
    m.records.push({ ...m.records[0], index: 1 });
    await writeFile(manifestPath, canonicalJsonUnchecked(m));
    expect((await verifyFiles({ manifest: manifestPath, export: exportPath })).readable).toBe(true);
    // …one of 2,000,001 is not.
    m.records = [{ ...m.records[0], junk: Array.from({ length: 2_000_001 }, () => 0) }];
    await writeFile(manifestPath, canonicalJsonUnchecked(m));
    const result = await verifyFiles({ manifest: manifestPath, export: exportPath });
    expect(result.problems).toEqual([
      { code: "manifest_unreadable", message: `cannot read manifest ${manifestPath} (more than 2000000 JSON values in one record, the most verify holds)` },
    ]);
  });
});

/** Writes the pair of a synthesized run into `dir` under `name` and requires verify to find it consistent. */
async function expectVerifiesConsistent(dir: string, name: string, run: ReturnType<typeof synthRun>): Promise<void> {
  const manifestPath = join(dir, `manifest-${name}.json`);
  const exportPath = join(dir, `export-${name}.json`);
  await writeFile(manifestPath, run.manifest.bytes);
  await writeFile(exportPath, run.exported!.bytes);
  const result = await verifyFiles({ manifest: manifestPath, export: exportPath });
  expect(result.problems).toEqual([]);
  expect(result.consistent).toBe(true);
}

describe("verifyFiles reads every export ingest can write", () => {
  it("a record of thousands of segments (far more values than a default policy's record) verifies consistent, v1 and v3", async () => {
    const dir = await tempDir();
    const text = "The quick brown fox jumps over the lazy dog. ".repeat(7000);
    const policy = resolvePolicy({ max_item_bytes: 1 << 20, segment_chars: 100, segment_overlap: 0, max_segments: 5000 });
    for (const manifestVersion of [1, 3] as const) {
      await expectVerifiesConsistent(dir, `v${manifestVersion}`, synthRun([{ id: "book", source: null, metadata: {}, text }], { policy, manifestVersion }));
    }
  }, 240_000);

  it("a text within the largest max_item_bytes whose JSON string is six times longer escaped verifies consistent", async () => {
    const dir = await tempDir();
    // 11 MiB of control characters: within max_item_bytes, and 66 MiB written as `\u0001` escapes,
    // over what the record's 65 MiB of characters would allow a string if it were counted as written.
    const text = "\u0001".repeat(11 << 20);
    const policy = resolvePolicy({ max_item_bytes: 64 << 20, segment_chars: 16 << 20, segment_overlap: 0, max_segments: 2 });
    const run = synthRun([{ id: "long", source: null, metadata: {}, text }], { policy, manifestVersion: 3 });
    expect(run.exported?.bytes.length).toBeGreaterThan(66 << 20);
    await expectVerifiesConsistent(dir, "escaped", run);
  }, 240_000);
});

describe("verify says on stderr why a large pair takes longer", () => {
  it("a 64 MiB pair the fast read gives up on: one line naming the manifest, before the report", async () => {
    const dir = await tempDir();
    const run = makeRun([{ id: "a", source: null, metadata: {}, text: "one" }], true);
    const manifestPath = join(dir, "manifest.json");
    const exportPath = join(dir, "export.json");
    // Leading whitespace: the strict reader reads it, the fast one gives up at the first byte.
    await writeFile(manifestPath, Buffer.concat([Buffer.alloc(64 << 20, 0x20), Buffer.from(run.manifest.bytes)]));
    await writeFile(exportPath, run.exported!.bytes);
    const verified = await runCli(["verify", "--manifest", "manifest.json", "--export", "export.json"], { cwd: dir });
    const lines = verified.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^verify: the pair of "manifest\.json" \(67 MB\) is not laid out byte for byte as ingest writes it/);
    // The file's bytes are no longer the manifest's canonical form: reported as before.
    expect(verified.stdout).toMatch(/^verify: 1 problem\n {2}- \[manifest_bytes\]/);
    expect(verified.code).toBe(1);
  });
});
