// The module import graph of the repository and the layering rules it must follow, both read
// from docs/architecture.md: the allowed-edge table (which folder of src/ may import which) and
// the "never" rules (edges no change may add, whatever the table says). Specifiers are read with
// the TypeScript scanner (static `import`, `export ... from`, `import type` and dynamic
// `import("...")`), so comments and strings are not mistaken for imports; a type-only import is
// an edge like any other.
import { readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import ts from "typescript";

/** One import: the importing file and the file it names, both relative to the repository root. */
export interface ImportEdge {
  readonly from: string;
  readonly to: string;
}

/** An import that breaks the layering rules, with the reason in words. */
export interface LayerViolation extends ImportEdge {
  readonly reason: string;
}

/** The allowed-edge table: each folder of src/ (and `index.ts`) with the folders it may import. */
export type EdgeTable = ReadonlyMap<string, ReadonlySet<string>>;

/** One "never" rule: none of `from` (`*`: any folder) may import any of `to` (`*`: any other folder). */
export interface NeverRule {
  readonly from: readonly string[];
  readonly to: readonly string[];
  readonly why: string;
}

/** Relative specifiers named by `source` (imports, re-exports, dynamic imports). */
export function importSpecifiers(source: string): string[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles.map((file) => file.fileName).filter((name) => name.startsWith("./") || name.startsWith("../"));
}

/** `spec` imported from `from`, resolved to a repository-relative path (`.js` named as its `.ts` source). */
function resolveSpecifier(from: string, spec: string): string {
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
 * The folder of a path for the layering rules: the first folder under src/ (`src/index.ts` is
 * "index.ts"), "cli" for cli/, and the path's own first segment for anything else.
 */
export function folderOf(path: string): string {
  const parts = path.split("/");
  if (parts[0] === "src") return parts[1] as string;
  return parts[0] as string;
}

/** The table section of `markdown` that starts at heading `title`, up to the next `## ` heading. */
function section(markdown: string, title: string): string {
  const start = markdown.split("\n").indexOf(`## ${title}`);
  if (start < 0) throw new Error(`docs/architecture.md has no "## ${title}" section`);
  const lines = markdown.split("\n").slice(start + 1);
  const end = lines.findIndex((line) => line.startsWith("## "));
  return lines.slice(0, end < 0 ? undefined : end).join("\n");
}

/** The backquoted names in one table cell, without a trailing slash (`core/` is `core`). */
function namesIn(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => (m[1] as string).replace(/\/$/, ""));
}

/** The cells of the table rows in `text` whose first cell names something in backquotes. */
function tableRows(text: string): string[][] {
  return text
    .split("\n")
    .filter((line) => /^\| `/.test(line))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

/**
 * The allowed-edge table of docs/architecture.md ("## The layering table"): the first cell of a
 * row names the folder, the last cell every folder it may import ("nothing" for none). Its own
 * folder is always allowed and never listed.
 */
export function parseEdgeTable(markdown: string): EdgeTable {
  const table = new Map<string, Set<string>>();
  for (const cells of tableRows(section(markdown, "The layering table"))) {
    const [folder] = namesIn(cells[0] as string);
    if (folder === undefined || table.has(folder)) throw new Error(`layering table: row ${cells[0]} is unnamed or repeated`);
    table.set(folder, new Set(namesIn(cells[cells.length - 1] as string)));
  }
  return table;
}

/**
 * The layer of each folder in the allowed-edge table (its "Layer" column: `core`, `documents`,
 * `detection`, `stages`, `entry`), and the layers bottom up in the order the table first names them.
 */
export function parseLayers(markdown: string): { readonly layerOf: ReadonlyMap<string, string>; readonly order: readonly string[] } {
  const layerOf = new Map<string, string>();
  for (const cells of tableRows(section(markdown, "The layering table"))) {
    const [folder] = namesIn(cells[0] as string);
    const layer = cells[1];
    if (folder === undefined || layer === undefined || cells.length < 4) throw new Error(`layering table: row ${cells[0]} names no layer`);
    layerOf.set(folder, layer);
  }
  return { layerOf, order: [...new Set(layerOf.values())] };
}

/** The "never" rules of docs/architecture.md ("## Never"): from, never imports, why. */
export function parseNeverRules(markdown: string): NeverRule[] {
  return tableRows(section(markdown, "Never")).map((cells) => ({
    from: namesIn(cells[0] as string),
    to: namesIn(cells[1] as string),
    why: cells[2] ?? "",
  }));
}

/**
 * The folder-to-folder edges of `edges` from src/ (own folder left out), as `from -> to` once
 * each; an import of code outside src/ counts as an edge to its first folder (`cli`).
 */
export function folderEdges(edges: readonly ImportEdge[]): string[] {
  const seen = new Set<string>();
  for (const edge of edges) {
    if (!edge.from.startsWith("src/") || (!edge.to.startsWith("src/") && !/\.(ts|mts|mjs|js)$/.test(edge.to))) continue;
    const from = folderOf(edge.from);
    const to = folderOf(edge.to);
    if (from !== to) seen.add(`${from} -> ${to}`);
  }
  return [...seen].sort();
}

/** The imports among `edges` that the allowed-edge table does not allow. */
export function layerViolations(edges: readonly ImportEdge[], table: EdgeTable): LayerViolation[] {
  const violations: LayerViolation[] = [];
  for (const edge of edges) {
    if (!edge.from.startsWith("src/")) continue;
    const fromFolder = folderOf(edge.from);
    const allowed = table.get(fromFolder);
    if (allowed === undefined) {
      violations.push({ ...edge, reason: `src/${fromFolder} is not in the layering table` });
      continue;
    }
    if (!edge.to.startsWith("src/")) {
      // Data files beside src/ (package.json, policies/) are not code; code outside src/ is not a layer.
      if (/\.(ts|mts|mjs|js)$/.test(edge.to)) violations.push({ ...edge, reason: `src/ imports code outside src/ (${folderOf(edge.to)}/)` });
      continue;
    }
    const toFolder = folderOf(edge.to);
    if (toFolder !== fromFolder && !allowed.has(toFolder)) {
      violations.push({ ...edge, reason: `${fromFolder} may not import ${toFolder} (not in its row of the layering table)` });
    }
  }
  return violations;
}

/** Allowances of the table that no import uses (the table says what the code needs, no more). */
export function unusedAllowances(edges: readonly ImportEdge[], table: EdgeTable): string[] {
  const used = new Set(folderEdges(edges));
  return [...table].flatMap(([from, to]) => [...to].map((folder) => `${from} -> ${folder}`)).filter((edge) => !used.has(edge));
}

/** The edges `from -> to` among `candidates` (each `from -> to`) that a never rule forbids, with its reason. */
export function neverViolations(candidates: readonly string[], rules: readonly NeverRule[]): string[] {
  const hits = (names: readonly string[], name: string): boolean => names.includes("*") || names.includes(name);
  return candidates.flatMap((edge) => {
    const [from, to] = edge.split(" -> ") as [string, string];
    return rules.filter((rule) => hits(rule.from, from) && hits(rule.to, to)).map((rule) => `${edge}: never (${rule.why})`);
  });
}

/** Groups of nodes that reach one another (Tarjan's strongly connected components), each sorted; a node that imports itself is a group too. */
function cycles(next: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
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
      if (component.length > 1 || next.get(node)?.has(node)) components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!order.has(node)) visit(node);
  return components.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** `pairs` as an adjacency map. */
function adjacency(pairs: Iterable<readonly [string, string]>): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (!next.has(from)) next.set(from, new Set());
    next.get(from)?.add(to);
  }
  return next;
}

/** Folder-level cycles among `edges`: each as the sorted folders of one group that reach one another. */
export function folderCycles(edges: readonly ImportEdge[]): string[][] {
  const pairs = edges.map((edge) => [folderOf(edge.from), folderOf(edge.to)] as const).filter(([from, to]) => from !== to);
  return cycles(adjacency(pairs));
}

/** Cycles of the allowed-edge table itself: a table with none cannot admit a folder cycle. */
export function tableCycles(table: EdgeTable): string[][] {
  return cycles(adjacency([...table].flatMap(([from, to]) => [...to].map((folder) => [from, folder] as const))));
}

/** File-level cycles among `edges` (type-only imports included): each as the sorted files of one group. */
export function fileCycles(edges: readonly ImportEdge[]): string[][] {
  return cycles(adjacency(edges.map((edge) => [edge.from, edge.to] as const)));
}

/** Every file `start` loads, directly or through others (itself included), following `edges`. */
export function importClosure(edges: readonly ImportEdge[], start: string): string[] {
  const next = adjacency(edges.map((edge) => [edge.from, edge.to] as const));
  const seen = new Set([start]);
  const queue = [start];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    for (const to of next.get(file) ?? []) {
      if (!seen.has(to)) {
        seen.add(to);
        queue.push(to);
      }
    }
  }
  return [...seen].sort();
}

/** The files among `edges` sources that import a cli/ module. */
export function cliImporters(edges: readonly ImportEdge[]): string[] {
  return [...new Set(edges.filter((edge) => edge.to.startsWith("cli/")).map((edge) => edge.from))].sort();
}
