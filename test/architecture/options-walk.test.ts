// The options walk behind `npm run graph:options` (scripts/options-walk.ts) on a small tree whose
// calls are known: it follows an options object down into the functions it is handed to, records
// the closure the CLI hands over as an option and the verb calls as a call up (a climb), a plain
// call down as no climb, leaves a string handed to a helper and a library method of the same name
// as a closure (`Map.get`) alone, and counts a stage folder entered again after another as a return.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseLayers } from "../../scripts/import-graph.js";
import { edgeLabel, type OptionsWalk, SPECS, walkFigures, walkOptions } from "../../scripts/options-walk.js";

const TREE: Record<string, string> = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true } }),
  "cli/commands/go.ts": [
    'import { runVerb } from "../../src/verb/run.js";',
    "export async function run(flags: { limit: number; name: string }, io: { out: string[] }): Promise<number> {",
    "  const counts = new Map([[flags.name, flags.limit]]);",
    "  const total = await runVerb({ limit: flags.limit, label: flags.name, counts, build: () => makeThing(flags), get: () => flags.limit });",
    "  io.out.push(String(total));",
    "  return 0;",
    "}",
    "function makeThing(flags: { name: string }): { name: string } {",
    "  return { name: flags.name };",
    "}",
  ].join("\n"),
  "src/verb/run.ts": [
    'import { read } from "../read/read.js";',
    'import { write } from "../write/write.js";',
    'import { format } from "../core/format.js";',
    "export async function runVerb(options: { limit: number; label: string; counts: Map<string, number>; build: () => { name: string }; get: () => number }): Promise<number> {",
    "  const rows = read(options);",
    "  const thing = options.build();",
    "  write(options);",
    "  format(options.label);",
    "  return rows + read(options) + thing.name.length;",
    "}",
  ].join("\n"),
  "src/read/read.ts": 'export function read(o: { limit: number; counts: Map<string, number> }): number {\n  return o.limit + (o.counts.get("x") ?? 0);\n}\n',
  "src/write/write.ts": "export function write(o: { limit: number }): number {\n  return o.limit + 1;\n}\n",
  "src/core/format.ts": "export function format(s: string): string {\n  return s.trim();\n}\n",
};

describe("the options walk", () => {
  const root = mkdtempSync(join(tmpdir(), "options-walk-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, text] of Object.entries(TREE)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  // Type-checking even a small tree loads the standard library's types: walk it once.
  let walked: OptionsWalk | undefined;
  const walk = (): OptionsWalk => {
    walked ??= walkOptions(root, "cli/commands/go.ts", "flags");
    return walked;
  };
  const layerOf = new Map([
    ["core", "core"],
    ["read", "stages"],
    ["write", "stages"],
    ["verb", "verbs"],
  ]);
  const layers = ["core", "stages", "verbs"];

  it("records the calls that carry the options as a call tree, in the order they run, the closure where its body is", () => {
    expect(walk().root).toEqual({ file: "cli/commands/go.ts", folder: "cli", name: "run", line: 2 });
    expect(walk().calls.map(edgeLabel)).toEqual([
      "cli/commands/go.ts:run → src/verb/run.ts:runVerb",
      "src/verb/run.ts:runVerb → src/read/read.ts:read",
      "src/verb/run.ts:runVerb → cli/commands/go.ts:build",
      "cli/commands/go.ts:build → cli/commands/go.ts:makeThing",
      "src/verb/run.ts:runVerb → src/write/write.ts:write",
      "src/verb/run.ts:runVerb → src/read/read.ts:read",
    ]);
  });

  it("counts a callback called from a lower layer as a climb and a call down as none", () => {
    const figures = walkFigures(walk(), layerOf, layers, ["read", "write"]);
    expect({ rooms: figures.rooms, folders: figures.folders, edges: figures.edges }).toEqual({ rooms: 4, folders: ["cli", "verb", "read", "write"], edges: 5 });
    expect(figures.climbs.map(edgeLabel)).toEqual(["src/verb/run.ts:runVerb → cli/commands/go.ts:build"]);
  });

  it("counts a stage folder entered again after another stage as a return, and stages entered once in order as met", () => {
    const twice = walkFigures(walk(), layerOf, layers, ["read", "write"]);
    expect(twice.stageSequence).toEqual(["read", "write", "read"]);
    expect(twice.returns.map(edgeLabel)).toEqual(["src/verb/run.ts:runVerb → src/read/read.ts:read"]);
    expect(twice.stagesInOrder).toBe(false);
    const once = walkFigures(walk(), layerOf, layers, ["write"]);
    expect({ sequence: once.stageSequence, returns: once.returns.length, inOrder: once.stagesInOrder }).toEqual({
      sequence: ["write"],
      returns: 0,
      inOrder: true,
    });
  });
});

describe("the repository's own options walks", () => {
  const repo = new URL("../../", import.meta.url).pathname;
  const { layerOf, order } = parseLayers(readFileSync(join(repo, "docs/architecture.md"), "utf8"));
  for (const spec of SPECS) {
    it(`${spec.command}: enters its stage folders once each, in order (${spec.stages.join(" → ")}), with at most ${spec.maxClimbs} climbs`, () => {
      const figures = walkFigures(walkOptions(repo, spec.entry, spec.parameter), layerOf, order, spec.stages);
      expect(figures.stageSequence).toEqual(spec.stages);
      expect(figures.returns.map(edgeLabel)).toEqual([]);
      expect(figures.climbs.length).toBeLessThanOrEqual(spec.maxClimbs);
    }, 120_000);
  }
});
