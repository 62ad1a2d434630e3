// Files given in the wrong place verify nothing, and say what to fix in one problem: a manifest
// given as the export (the same file twice, or two manifests) is `export_is_manifest`.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingestFiles } from "../../src/ingest/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { UNVERIFIABLE_PROBLEM_CODES } from "../../src/verify/problems.js";
import { verifyFiles } from "../../src/verify/verify-files.js";

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
