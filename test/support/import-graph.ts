// The module import graph of the repository and the layering rule it must follow. The table
// below is the same as the one in docs/architecture.md: a folder of src/ may import its own
// folder and folders listed before it, never one listed after it, and nothing under src/
// imports cli/. Specifiers are read with the TypeScript scanner (static `import`, `export ...
// from`, `import type` and dynamic `import("...")`), so comments and strings are not mistaken
// for imports.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";

/** One layer: its name and its folders under src/, in dependency order (a folder may use the earlier ones). */
export interface Layer {
  readonly name: string;
  readonly folders: readonly string[];
}

/**
 * The layering table, bottom up. Within a layer the folder order is also binding: `judge` may use
 * `canary` and `analysis`, `ingest` may use `publish`, never the other way round.
 */
export const LAYERS: readonly Layer[] = [
  { name: "core", folders: ["core"] },
  { name: "documents", folders: ["documents"] },
  { name: "detection", folders: ["structural", "canary", "analysis", "judge", "pipeline"] },
  {
    name: "stages",
    folders: [
      "schedule",
      "spool",
      "config",
      "cache",
      "jsonl",
      "check",
      "screen",
      "publish",
      "report",
      "ingest",
      "verify",
      "rag",
      "server",
      "demo",
      "eval",
      "integrations",
    ],
  },
  // src/index.ts, the public entry point, sits above every folder of src/.
  { name: "entry", folders: ["index.ts"] },
];

/** One import: the importing file and the file it names, both relative to the repository root. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** An import that breaks the layering table, with the reason in words. */
export interface LayerViolation extends ImportEdge {
  readonly reason: string;
}

/** Relative specifiers named by `source` (imports, re-exports, dynamic imports). */
export function importSpecifiers(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((file) => file.fileName).filter((name) => name.startsWith("./") || name.startsWith("../"));
}

/** `spec` imported from `from`, resolved to a repository-relative path (`.js` named as its `.ts` source). */
export function resolveSpecifier(from: string, spec: string): string {
  const target = posix.normalize(posix.join(posix.dirname(from), spec));
  return target.replace(/\.js$/, ".ts");
}

/** Every `.ts` file under `dir` (relative to `root`), as repository-relative posix paths. */
export function tsFiles(root: string, dir: string): string[] {
  const entries = readdirSync(join(root, dir), { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith(".ts"))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)).split("\\").join("/"))
    .sort();
}

/** The relative imports of `files` (repository-relative paths under `root`). */
export function importGraph(root: string, files: readonly string[]): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const from of files) {
    const source = readFileSync(join(root, from), "utf8");
    for (const spec of importSpecifiers(source)) edges.push({ from, to: resolveSpecifier(from, spec) });
  }
  return edges;
}

/**
 * The folder of a path for the layering rule: the first folder under src/ (`src/index.ts` is
 * "index.ts"), "cli" for cli/, and the path's own first segment for anything else.
 */
export function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "src") return parts[1] as string;
  return parts[0] as string;
}

/** Each folder of src/ with its position in the flattened table (lower may be imported by higher). */
export function folderRanks(layers: readonly Layer[]): Map<string, { rank: number; layer: string }> {
  const ranks = new Map<string, { rank: number; layer: string }>();
  for (const layer of layers) for (const folder of layer.folders) ranks.set(folder, { rank: ranks.size, layer: layer.name });
  return ranks;
}

/** The imports among `edges` that break the layering table. */
export function layerViolations(edges: readonly ImportEdge[], layers: readonly Layer[] = LAYERS): LayerViolation[] {
  const ranks = folderRanks(layers);
  const violations: LayerViolation[] = [];
  for (const edge of edges) {
    if (!edge.from.startsWith("src/")) continue;
    const fromFolder = folderOf(edge.from);
    const from = ranks.get(fromFolder);
    if (from === undefined) {
      violations.push({ ...edge, reason: `src/${fromFolder} is not in the layering table` });
      continue;
    }
    if (!edge.to.startsWith("src/")) {
      // Data files beside src/ (package.json, policies/) are not code; code outside src/ is not a layer.
      if (/\.(ts|mts|mjs|js)$/.test(edge.to)) violations.push({ ...edge, reason: `src/ imports code outside src/ (${folderOf(edge.to)}/)` });
      continue;
    }
    const toFolder = folderOf(edge.to);
    if (toFolder === fromFolder) continue;
    const to = ranks.get(toFolder);
    if (to === undefined) {
      violations.push({ ...edge, reason: `src/${toFolder} is not in the layering table` });
    } else if (to.rank > from.rank) {
      violations.push({ ...edge, reason: `${fromFolder} (${from.layer}) imports ${toFolder} (${to.layer}), which is above it` });
    }
  }
  return violations;
}

/** Folder-level cycles among `edges`: each as the sorted folders of one group that reach one another. */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const edge of edges) {
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from === to) continue;
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
  }
  // Tarjan's strongly connected components: a component with more than one folder is a cycle.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, index);
    low.set(node, index);
    index += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!order.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node) as number, order.get(to) as number));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!order.has(node)) visit(node);
  return components.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** The files among `edges` sources that import a cli/ module. */
export function cliImporters(edges: readonly ImportEdge[]): string[] {
  return [...new Set(edges.filter((edge) => edge.to.startsWith("cli/")).map((edge) => edge.from))].sort();
}
