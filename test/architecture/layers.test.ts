// The layering of src/ (docs/architecture.md) checked on the real import graph: every import is
// an edge the allowed-edge table lists, the table lists no edge the code does not use and none a
// "never" rule forbids, no file imports itself through others, the read-only verify entry loads
// no writer, and only cli/ itself, the CLI tests and scripts reach cli/ modules.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  cliImporters,
  fileCycles,
  folderCycles,
  folderEdges,
  importClosure,
  importGraph,
  importSpecifiers,
  layerViolations,
  neverViolations,
  parseEdgeTable,
  parseLayers,
  parseNeverRules,
  tableCycles,
  tsFiles,
  unusedAllowances,
  type ImportEdge,
} from "../../scripts/import-graph.js";

const ROOT = new URL("../../", import.meta.url).pathname;
const DOC = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
const TABLE = parseEdgeTable(DOC);
const NEVER = parseNeverRules(DOC);
const srcEdges = importGraph(ROOT, tsFiles(ROOT, "src"));
const tableEdges = [...TABLE].flatMap(([from, to]) => [...to].map((folder) => `${from} -> ${folder}`));

describe("layers of src/", () => {
  it("the graph and the table are read (every folder of src/ has a row; the rules are there)", () => {
    expect(srcEdges.length).toBeGreaterThan(300);
    expect(TABLE.size).toBeGreaterThan(20);
    expect(NEVER.length).toBeGreaterThan(5);
    const folders = new Set(tsFiles(ROOT, "src").map((file) => file.split("/")[1] as string));
    expect([...folders].filter((folder) => !TABLE.has(folder))).toEqual([]);
    expect([...TABLE.keys()].filter((folder) => !folders.has(folder))).toEqual([]);
    const { layerOf, order } = parseLayers(DOC);
    expect(order).toEqual(["core", "documents", "detection", "stages", "verbs", "entry"]);
    expect([...layerOf.keys()]).toEqual([...TABLE.keys()]);
  });

  it("every import in src/ is an edge the table allows", () => {
    expect(layerViolations(srcEdges, TABLE).map((v) => `${v.from} -> ${v.to}: ${v.reason}`)).toEqual([]);
  });

  it("the table allows no edge that no import uses", () => {
    expect(unusedAllowances(srcEdges, TABLE)).toEqual([]);
  });

  it("neither the table nor the code has an edge a never rule forbids", () => {
    expect(neverViolations(tableEdges, NEVER)).toEqual([]);
    expect(neverViolations(folderEdges(srcEdges), NEVER)).toEqual([]);
  });

  it("the table runs bottom up (a row lists only rows above it), so no folder cycle can be allowed", () => {
    const rows = [...TABLE.keys()];
    const upward = tableEdges.filter((edge) => {
      const [from, to] = edge.split(" -> ") as [string, string];
      return rows.indexOf(to) < 0 || rows.indexOf(to) > rows.indexOf(from);
    });
    expect(upward).toEqual([]);
    expect(tableCycles(TABLE)).toEqual([]);
    expect(folderCycles(srcEdges)).toEqual([]);
  });

  it("no file of src/ imports itself through others (type-only imports count too)", () => {
    expect(fileCycles(srcEdges)).toEqual([]);
  });

  it("the little-canary/verify entry loads no publish/ module, no writer and no canary client", () => {
    const closure = importClosure(srcEdges, "src/verify/index.ts");
    expect(closure.length).toBeGreaterThan(10);
    expect(closure.filter((file) => /^src\/(publish|canary|pipeline|ingest|cache|verbs)\//.test(file))).toEqual([]);
  });

  it("the canary circuit breaker reads serialized verdicts only: it imports nothing but documents/", () => {
    const breaker = ["src/pipeline/circuit-breaker.ts"];
    const imports = srcEdges.filter((e) => breaker.includes(e.from));
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.map((e) => e.to).filter((to) => !to.startsWith("src/documents/") && !breaker.includes(to))).toEqual([]);
  });

  it("judges take provider defaults and checks from canary/ modules, not from the probe classes; analysis reads no canary backend", () => {
    const probeImports = srcEdges.filter((e) => e.from.startsWith("src/judge/") && /^src\/canary\/[a-z-]*-probe\.ts$/.test(e.to));
    expect(probeImports).toEqual([]);
    const analysisToCanary = srcEdges.filter((e) => e.from.startsWith("src/analysis/") && e.to.startsWith("src/canary/"));
    expect(analysisToCanary.map((e) => e.to).filter((to) => to !== "src/canary/types.ts")).toEqual([]);
  });

  it("cli/ reaches the library only through src/verbs/ and src/core/ (apart from the output files listed)", () => {
    // Every command makes its one call through src/verbs/. The files listed still read a stage's
    // result types and constants directly to print them (and the program releases the embedded
    // canaries). A file that no longer needs its exception must leave this list, so it only shrinks.
    const readsStageResults = [
      "cli/cache-stats-output.ts",
      "cli/commands/ingest.ts",
      "cli/commands/model.ts",
      "cli/commands/verify.ts",
      "cli/exit-codes.ts",
      "cli/index-output.ts",
      "cli/ingest-flags.ts",
      "cli/ingest-output.ts",
      "cli/program.ts",
      "cli/verify-output.ts",
    ];
    const cliEdges = importGraph(ROOT, tsFiles(ROOT, "cli"));
    expect(cliEdges.filter((e) => e.to.startsWith("src/verbs/")).length).toBeGreaterThan(10);
    const around = cliEdges.filter((e) => e.to.startsWith("src/") && !/^src\/(verbs|core)\//.test(e.to));
    expect([...new Set(around.map((e) => e.from))].sort()).toEqual(readsStageResults);
  });

  it("nothing under src/ imports cli/; bench/ and test/publish/ import no cli/ module", () => {
    const files = [...tsFiles(ROOT, "src"), ...tsFiles(ROOT, "bench"), ...tsFiles(ROOT, "test/publish")];
    expect(cliImporters(importGraph(ROOT, files))).toEqual([]);
  });
});

describe("the layering check is not vacuous", () => {
  const edge = (from: string, to: string): ImportEdge => ({ from, to });
  const table = parseEdgeTable(
    [
      "## The layering table",
      "",
      "| Folder | May import |",
      "|---|---|",
      "| `core/` | nothing |",
      "| `documents/` | `core` |",
      "| `publish/` | `core`, `documents` |",
      "| `verify/` | `core`, `documents` |",
      "",
      "## Never",
      "",
      "| From | Never imports | Why |",
      "|---|---|---|",
      "| `verify` | `publish` | read-only |",
      "| `*` | `cli` | shell |",
      "",
    ].join("\n"),
  );

  it("the table and the never rules are read from their sections", () => {
    expect([...table].map(([from, to]) => `${from}: ${[...to].join(",")}`)).toEqual([
      "core: ",
      "documents: core",
      "publish: core,documents",
      "verify: core,documents",
    ]);
    expect(parseNeverRules("## Never\n\n| `verify`, `server` | `publish` | read-only |\n")).toEqual([
      { from: ["verify", "server"], to: ["publish"], why: "read-only" },
    ]);
  });

  it("an edge the table does not list, a folder without a row and src/ reaching into cli/ are reported", () => {
    const violations = layerViolations(
      [
        edge("src/core/hash.ts", "src/documents/schemas.ts"),
        edge("src/verify/shard-index.ts", "src/publish/atomic-write.ts"),
        edge("src/publish/publish.ts", "src/documents/schemas.ts"),
        edge("src/newthing/a.ts", "src/core/hash.ts"),
        edge("src/verify/files.ts", "cli/io.ts"),
        edge("src/verify/files.ts", "package.json"),
      ],
      table,
    );
    expect(violations.map((v) => v.reason)).toEqual([
      "core may not import documents (not in its row of the layering table)",
      "verify may not import publish (not in its row of the layering table)",
      "src/newthing is not in the layering table",
      "src/ imports code outside src/ (cli/)",
    ]);
    expect(cliImporters([edge("bench/crash-child.ts", "cli/commands/ingest.ts")])).toEqual(["bench/crash-child.ts"]);
  });

  it("an allowance nothing uses and an edge a never rule forbids are reported", () => {
    const edges = [edge("src/documents/schemas.ts", "src/core/hash.ts"), edge("src/publish/pair.ts", "src/core/hash.ts")];
    expect(unusedAllowances(edges, table)).toEqual(["publish -> documents", "verify -> core", "verify -> documents"]);
    const rules = parseNeverRules("## Never\n\n| `verify` | `publish` | read-only |\n| `*` | `cli` | shell |\n");
    expect(neverViolations(["verify -> publish", "verify -> core", "ingest -> cli"], rules)).toEqual([
      "verify -> publish: never (read-only)",
      "ingest -> cli: never (shell)",
    ]);
    expect(folderEdges([edge("src/verify/a.ts", "cli/io.ts"), edge("src/verify/a.ts", "src/verify/b.ts"), edge("src/verify/a.ts", "package.json")])).toEqual([
      "verify -> cli",
    ]);
  });

  it("a cycle between folders (even through a third), between files, and in the table is reported", () => {
    expect(
      folderCycles([
        edge("src/ingest/run.ts", "src/documents/schemas.ts"),
        edge("src/documents/manifest-records.ts", "src/publish/pair.ts"),
        edge("src/publish/pair.ts", "src/ingest/classify.ts"),
        edge("src/verify/index.ts", "src/core/hash.ts"),
      ]),
    ).toEqual([["documents", "ingest", "publish"]]);
    expect(
      fileCycles([
        edge("src/documents/allowlist.ts", "src/documents/schemas.ts"),
        edge("src/documents/schemas.ts", "src/documents/allowlist.ts"),
        edge("src/documents/schemas.ts", "src/core/hash.ts"),
        edge("src/core/self.ts", "src/core/self.ts"),
      ]),
    ).toEqual([["src/core/self.ts"], ["src/documents/allowlist.ts", "src/documents/schemas.ts"]]);
    expect(
      tableCycles(
        new Map([
          ["a", new Set(["b"])],
          ["b", new Set(["a"])],
        ]),
      ),
    ).toEqual([["a", "b"]]);
  });

  it("the import closure of a file follows re-exports through every folder", () => {
    const edges = [edge("src/verify/index.ts", "src/verify/a.ts"), edge("src/verify/a.ts", "src/publish/w.ts"), edge("src/ingest/x.ts", "src/spool/s.ts")];
    expect(importClosure(edges, "src/verify/index.ts")).toEqual(["src/publish/w.ts", "src/verify/a.ts", "src/verify/index.ts"]);
  });

  describe("on real files with a forbidden import", () => {
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
      const rows = new Map([
        ["core", new Set<string>()],
        ["pipeline", new Set(["core"])],
      ]);
      expect(layerViolations(edges, rows).map((v) => v.to)).toEqual(["src/pipeline/pipeline.ts", "cli/io.ts"]);
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
