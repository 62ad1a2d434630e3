// `little-canary verify` on real pairs: a run whose canary was disabled by choice (`ingest
// --no-canary`, the README's first command) is consistent with a note, while a run whose canary
// was enabled but whose context is unverified still has the problem; a manifest and an export
// given the wrong way round are named as such and refused (exit 3).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256Hex } from "../../src/core/hash.js";
import { verifyManifestOnly } from "../../src/verify/verify-export.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import { runCli } from "../support/cli.js";
import { reparse, synthRun } from "../support/run-data.js";

const RECORDS = resolve(import.meta.dirname, "../../examples/records.jsonl");
const NOTE = "note: canary disabled: nothing admitted (the run turned the canary off, so only the structural layer ran)\n";
const SWAPPED =
  "error: the file given as the manifest looks like an export and the file given as the export like a manifest: swap them (--manifest MANIFEST --export EXPORT)\n";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-verify-cli-"));
  // The README's first command.
  const ingest = await runCli(["ingest", RECORDS, "--manifest-version", "1", "--manifest", "m.json", "--export", "e.json", "--overwrite", "--no-canary"], {
    cwd: dir,
  });
  expect(ingest.code, ingest.stderr).toBe(2);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("verify of a run whose canary was disabled by choice", () => {
  it("a pair from ingest --no-canary is consistent (exit 0), with a note that the canary was disabled and nothing admitted", async () => {
    const run = await runCli(["verify", "--manifest", "m.json", "--export", "e.json"], { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const sha = sha256Hex(await readFile(join(dir, "m.json")));
    expect(run.stdout).toBe(`verify: consistent (manifest sha256=${sha}, not pinned)\n${NOTE}`);
    expect(run.stdout).not.toContain("context_unverified");
  });

  it("--json reports it consistent with the note in `notes`, never as a problem", async () => {
    const run = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--json"], { cwd: dir });
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ consistent: true, problems: [], export_checked: true });
    expect(report.notes).toEqual([{ code: "canary_disabled", message: NOTE.slice("note: ".length, -1) }]);
  });

  it("the manifest pin keeps its meaning: the right pin matches (exit 0), a wrong one is a problem (exit 1)", async () => {
    const sha = sha256Hex(await readFile(join(dir, "m.json")));
    const pinned = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--expect-manifest-sha256", sha], { cwd: dir });
    expect(pinned.code).toBe(0);
    expect(pinned.stdout).toBe(`verify: consistent (manifest sha256=${sha}, matches the pin)\n${NOTE}`);
    const wrong = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--expect-manifest-sha256", "0".repeat(64)], { cwd: dir });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain("[manifest_sha256] manifest sha256 does not match --expect-manifest-sha256");
    expect(wrong.stdout).not.toContain("context_unverified");
  });

  it("a pin, or a file, given twice with different values is refused (exit 3) rather than the last one winning; the same value twice is one", async () => {
    const sha = sha256Hex(await readFile(join(dir, "m.json")));
    const overridden = await runCli(
      ["verify", "--manifest", "m.json", "--export", "e.json", "--expect-manifest-sha256", "0".repeat(64), "--expect-manifest-sha256", sha],
      { cwd: dir },
    );
    expect(overridden.code).toBe(3);
    expect(overridden.stdout).toBe("");
    expect(overridden.stderr).toContain("--expect-manifest-sha256");
    expect(overridden.stderr).toContain("given twice with different values");
    const otherExport = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--export", "m.json"], { cwd: dir });
    expect(otherExport.code).toBe(3);
    expect(otherExport.stderr).toContain("--export");
    const repeated = await runCli(["verify", "--manifest", "m.json", "--export", "e.json", "--expect-manifest-sha256", sha, "--expect-manifest-sha256", sha], {
      cwd: dir,
    });
    expect(repeated.code).toBe(0);
  });

  it("a pair whose canary was enabled but whose context window is unverified still reports [context_unverified] (exit 1), with no note", async () => {
    const run = synthRun([{ id: "d", source: "wiki", metadata: { title: "t" }, text: "Admitted text." }], { verified: false });
    const pair = await mkdtemp(join(tmpdir(), "lc-verify-unverified-"));
    try {
      await writeFile(join(pair, "m.json"), run.manifest.bytes);
      await writeFile(join(pair, "e.json"), run.exported!.bytes);
      const cli = await runCli(["verify", "--manifest", "m.json", "--export", "e.json"], { cwd: pair });
      expect(cli.code).toBe(1);
      expect(cli.stdout).toBe("verify: 1 problem\n  - [context_unverified] manifest does not record a verified canary context window\n");
      const result = await verifyFiles({ manifest: "m.json", export: "e.json", cwd: pair });
      expect(result.notes).toEqual([]);
    } finally {
      await rm(pair, { recursive: true, force: true });
    }
  });

  it("a manifest that says the canary was disabled but admits a record is not excused: [context_unverified] stays", () => {
    const forged = reparse(
      synthRun([{ id: "d", source: "wiki", metadata: { title: "t" }, text: "Admitted text." }], { verified: false }).manifest.document,
    ) as any;
    forged.pipeline.canary_enabled = false;
    expect(forged.counts.admitted).toBe(1);
    expect(verifyManifestOnly(forged).map((p) => p.code)).toContain("context_unverified");
    // Claiming nothing was admitted does not help either: the recount sees the admitted record.
    forged.counts.admitted = 0;
    expect(verifyManifestOnly(forged).map((p) => p.code)).toContain("counts_mismatch");
  });
});

describe("verify with the manifest and the export given the wrong way round", () => {
  it("says to swap them, prints no report, and exits 3 (refused)", async () => {
    for (const json of [[], ["--json"]]) {
      const run = await runCli(["verify", "--manifest", "e.json", "--export", "m.json", ...json], { cwd: dir });
      expect(run.code).toBe(3);
      expect(run.stdout).toBe("");
      expect(run.stderr).toBe(SWAPPED);
    }
  });

  it("an export given alone as the manifest is named as an export (exit 3)", async () => {
    const run = await runCli(["verify", "--manifest", "e.json"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "error: the file given as the manifest looks like an export (little-canary-ingest-export/v1), not a manifest: give the manifest with --manifest and this file with --export\n",
    );
  });

  it("is seen when the documents are read whole too (members out of canonical order)", async () => {
    const exported = JSON.parse(await readFile(join(dir, "e.json"), "utf8"));
    // `records` first: a member that sorts before it comes after it, so the streamed reader hands over to the whole-document one.
    const { records, ...rest } = exported;
    await writeFile(join(dir, "e-reordered.json"), JSON.stringify({ records, ...rest }));
    const result = await verifyFiles({ manifest: "e-reordered.json", export: "m.json", cwd: dir });
    expect(result).toMatchObject({ consistent: false, readable: false });
    expect(result.problems.map((p) => p.code)).toEqual(["manifest_is_export"]);
  });
});
