// The options walk behind `npm run graph:options` (scripts/options-walk.ts) on a small tree whose
// path is known: it follows an options object into the functions it is handed to, comes back to
// the CLI through a closure handed over as an option, leaves a string handed to a helper where it
// is, and counts climbs and returns by the layers of the table.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type OptionsWalk, walkFigures, walkOptions } from "../../scripts/options-walk.js";

const TREE: Record<string, string> = {
  "tsconfig.json": JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", strict: true } }),
  "cli/commands/go.ts": [
    'import { runVerb } from "../../src/verb/run.js";',
    "export async function run(flags: { limit: number; name: string }, io: { out: string[] }): Promise<number> {",
    "  const total = await runVerb({ limit: flags.limit, label: flags.name, build: () => makeThing(flags) });",
    "  io.out.push(String(total));",
    "  return 0;",
    "}",
    "function makeThing(flags: { name: string }): { name: string } {",
    "  return { name: flags.name };",
    "}",
  ].join("\n"),
  "src/verb/run.ts": [
    'import { read } from "../read/read.js";',
    'import { format } from "../core/format.js";',
    "export async function runVerb(options: { limit: number; label: string; build: () => { name: string } }): Promise<number> {",
    "  const rows = read(options);",
    "  const thing = options.build();",
    "  format(options.label);",
    "  return rows + thing.name.length;",
    "}",
  ].join("\n"),
  "src/read/read.ts": "export function read(o: { limit: number }): number {\n  return o.limit;\n}\n",
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

  it("follows the options object down, back to the CLI through the closure it carries, and not into a helper given a string", () => {
    expect(walk().files).toEqual([
      "cli/commands/go.ts",
      "src/verb/run.ts",
      "src/read/read.ts",
      "src/verb/run.ts",
      "cli/commands/go.ts",
      "src/verb/run.ts",
      "cli/commands/go.ts",
    ]);
    expect(walk().folders).toEqual(["cli", "verb", "read", "verb", "cli", "verb", "cli"]);
  });

  it("counts a climb for each step to a higher layer and a return for each folder entered again", () => {
    const layerOf = new Map([
      ["core", "core"],
      ["read", "stages"],
      ["verb", "stages"],
    ]);
    const figures = walkFigures(walk(), layerOf, ["core", "stages"], ["read"]);
    expect(figures).toEqual({ rooms: 3, folders: 3, climbs: 2, returns: 4, stageEntries: [1], stagesInOrder: true });
    expect(walkFigures(walk(), layerOf, ["core", "stages"], ["read", "verb"]).stagesInOrder).toBe(false);
  });
});
