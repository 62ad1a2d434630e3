// Files given in the wrong place verify nothing, and say what to fix in one problem: a manifest
// given as the export (the same file twice, or two manifests) is `export_is_manifest`.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { UNVERIFIABLE_PROBLEM_CODES } from "../../src/verify/problems.js";
import { verifyFiles } from "../../src/verify/verify-files.js";
import { verifyExport, verifyManifestOnly } from "../../src/verify/verify-export.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-misplaced-"));
  await writeFile(join(dir, "in.jsonl"), '{"text":"A note about rivers."}\n{"text":"Another note."}\n');
  for (const name of ["a", "b"]) {
    await ingestFiles({
      input: "in.jsonl",
      manifest: `${name}.json`,
      export: `${name}-e.json`,
      pipeline: new SecurityPipeline({ enableCanary: false }),
      cwd: dir,
    });
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const MESSAGE =
  /^the file given as the export is a manifest \(little-canary-ingest-manifest\/v3\), not an export: give the export that ingest wrote beside this manifest with --export$/;

describe("a manifest given as the export", () => {
  for (const [what, exported] of [
    ["the same file given twice", "a.json"],
    ["another run's manifest", "b.json"],
  ] as const) {
    it(`is one unverifiable problem when it is ${what}`, async () => {
      const result = await verifyFiles({ manifest: "a.json", export: exported, cwd: dir });
      expect(result).toMatchObject({ consistent: false, readable: false, exportChecked: false });
      expect(result.problems.map((p) => p.code)).toEqual(["export_is_manifest"]);
      expect(result.problems[0]?.message).toMatch(MESSAGE);
      expect(UNVERIFIABLE_PROBLEM_CODES.has("export_is_manifest")).toBe(true);
    });
  }

  it("leaves the genuine pair consistent", async () => {
    expect((await verifyFiles({ manifest: "a.json", export: "a-e.json", cwd: dir })).consistent).toBe(true);
  });
});

describe("documents passed to verifyExport the wrong way round", () => {
  it("are one problem naming the arguments, never a list of schema problems; the right order is consistent", async () => {
    const manifest = await readFile(join(dir, "a.json"));
    const exported = await readFile(join(dir, "a-e.json"));
    expect(verifyExport(exported, manifest)).toEqual([]);
    const swapped = verifyExport(manifest, exported);
    expect(swapped).toEqual([
      {
        code: "manifest_is_export",
        message:
          "verifyExport's second argument (the manifest) looks like an export and its first argument (the export) like a manifest: swap them: verifyExport(exportDoc, manifestDoc)",
      },
    ]);
    // Parsed values the same way as bytes; two manifests; an export checked as a manifest alone.
    expect(verifyExport(JSON.parse(manifest.toString("utf8")), JSON.parse(exported.toString("utf8")))[0]?.code).toBe("manifest_is_export");
    expect(verifyExport(manifest, manifest).map((p) => p.code)).toEqual(["export_is_manifest"]);
    const alone = verifyManifestOnly(exported);
    expect(alone.map((p) => p.code)).toEqual(["manifest_is_export"]);
    expect(alone[0]?.message).toMatch(
      /^verifyManifestOnly's argument looks like an export \(little-canary-ingest-export\/v3\), not a manifest: pass the manifest/,
    );
  });
});
