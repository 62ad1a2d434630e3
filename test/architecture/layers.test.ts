// The layering of src/ (docs/architecture.md) checked on the real import graph: no import goes
// up the table, no two folders import each other even indirectly, and only cli/ itself, the
// CLI tests and scripts reach cli/ modules.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { LAYERS, cliImporters, folderCycles, importGraph, importSpecifiers, layerViolations, tsFiles, type ImportEdge } from "../support/import-graph.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const srcEdges = importGraph(ROOT, tsFiles(ROOT, "src"));

describe("layers of src/", () => {
  it("the graph is read (every folder of src/ is in the table and has imports)", () => {
    expect(srcEdges.length).toBeGreaterThan(300);
    const folders = new Set(tsFiles(ROOT, "src").map((file) => file.split("/")[1]));
    const tabled = new Set(LAYERS.flatMap((layer) => layer.folders));
    expect([...folders].filter((folder) => !tabled.has(folder as string))).toEqual([]);
  });

  it("docs/architecture.md shows the same layering table as the check", () => {
    const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
    const rows = [...doc.matchAll(/^\| \d+ \| (\w+) \| `([^`/]+)\/?` \|/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(rows).toEqual(LAYERS.flatMap((layer) => layer.folders.map((folder) => `${layer.name}:${folder}`)));
  });

  it("no import in src/ goes against the layering table", () => {
    expect(layerViolations(srcEdges).map((v) => `${v.from} -> ${v.to}: ${v.reason}`)).toEqual([]);
  });

  it("no folder-level import cycle in src/", () => {
    expect(folderCycles(srcEdges)).toEqual([]);
  });

  it("judges take provider defaults and checks from canary/ modules, not from the probe classes; analysis reads no canary backend", () => {
    const probeImports = srcEdges.filter((e) => e.from.startsWith("src/judge/") && /^src\/canary\/[a-z-]*-probe\.ts$/.test(e.to));
    expect(probeImports).toEqual([]);
    const analysisToCanary = srcEdges.filter((e) => e.from.startsWith("src/analysis/") && e.to.startsWith("src/canary/"));
    expect(analysisToCanary.map((e) => e.to).filter((to) => to !== "src/canary/types.ts")).toEqual([]);
  });

  it("nothing under src/ imports cli/; bench/ and test/publish/ import no cli/ module", () => {
    const files = [...tsFiles(ROOT, "src"), ...tsFiles(ROOT, "bench"), ...tsFiles(ROOT, "test/publish")];
    expect(cliImporters(importGraph(ROOT, files))).toEqual([]);
  });
});

describe("the layering check is not vacuous", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to });

  it("an upward import is reported (core importing documents, canary importing pipeline)", () => {
    const violations = layerViolations([
      edge("src/core/hash.ts", "src/documents/schemas.ts"),
      edge("src/canary/ollama-probe.ts", "src/pipeline/pipeline.ts"),
      edge("src/ingest/run.ts", "src/publish/publish.ts"),
    ]);
    expect(violations.map((v) => v.from)).toEqual(["src/core/hash.ts", "src/canary/ollama-probe.ts"]);
    expect(violations[0]?.reason).toBe("core (core) imports documents (documents), which is above it");
  });

  it("a cycle between folders is reported, including one through a third folder", () => {
    expect(
      folderCycles([
        edge("src/ingest/run.ts", "src/documents/schemas.ts"),
        edge("src/documents/manifest-records.ts", "src/publish/pair.ts"),
        edge("src/publish/pair.ts", "src/ingest/classify.ts"),
        edge("src/verify/index.ts", "src/core/hash.ts"),
      ]),
    ).toEqual([["documents", "ingest", "publish"]]);
  });

  it("a folder missing from the table and src/ reaching into cli/ are reported", () => {
    const reasons = layerViolations([edge("src/newthing/a.ts", "src/core/hash.ts"), edge("src/ingest/files.ts", "cli/io.ts")]).map((v) => v.reason);
    expect(reasons).toEqual(["src/newthing is not in the layering table", "src/ imports code outside src/ (cli/)"]);
    expect(cliImporters([edge("bench/crash-child.ts", "cli/commands/ingest.ts")])).toEqual(["bench/crash-child.ts"]);
  });

  describe("on a real file with an upward import", () => {
    const dir = mkdtempSync(join(tmpdir(), "layers-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("a file in src/core/ that imports src/pipeline/ is caught from its text", () => {
      mkdirSync(join(dir, "src/core"), { recursive: true });
      mkdirSync(join(dir, "src/pipeline"), { recursive: true });
      writeFileSync(
        join(dir, "src/core/upward.ts"),
        [
          '// import { nothing } from "../ingest/run.js" (a comment is not an import)',
          'import type { SecurityPipeline } from "../pipeline/pipeline.js";',
          'export { sha256Hex } from "./hash.js";',
          'export const later = () => import("../../cli/io.js");',
          "export type P = SecurityPipeline;",
        ].join("\n"),
      );
      writeFileSync(join(dir, "src/pipeline/pipeline.ts"), 'import { sha256Hex } from "../core/hash.js";\nexport class SecurityPipeline {}\n');
      const edges = importGraph(dir, tsFiles(dir, "src"));
      expect(edges).toEqual([
        edge("src/core/upward.ts", "src/pipeline/pipeline.ts"),
        edge("src/core/upward.ts", "src/core/hash.ts"),
        edge("src/core/upward.ts", "cli/io.ts"),
        edge("src/pipeline/pipeline.ts", "src/core/hash.ts"),
      ]);
      expect(layerViolations(edges).map((v) => v.to)).toEqual(["src/pipeline/pipeline.ts", "cli/io.ts"]);
      expect(folderCycles(edges)).toEqual([["core", "pipeline"]]);
      expect(cliImporters(edges)).toEqual(["src/core/upward.ts"]);
    });
  });

  it("specifiers come from import, export-from, import type and import(), not from comments or strings", () => {
    const source = [
      'import a from "./a.js";',
      'import type { B } from "../b.js";',
      'export * from "./c.js";',
      'const d = await import("./d.js");',
      '// import e from "./e.js";',
      "const f = \"import g from './g.js'\";",
      'import { readFile } from "node:fs/promises";',
    ].join("\n");
    expect(importSpecifiers(source)).toEqual(["./a.js", "../b.js", "./c.js", "./d.js"]);
  });
});
