// Locates and loads the shared evaluation corpora (../shared/corpora relative to the repo root)
// for benchmarks. The corpora are third-party data: they are read at run time, never copied.
// The directory is LITTLE_CANARY_CORPORA when set, else <repoRoot>/../shared/corpora, where the
// repo root is found by walking up from this module to the nearest package.json (this file runs
// both from bench/ via vitest and from dist/bench/ after a build).

import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export interface CorpusCase {
  readonly id: string;
  readonly category: string;
  readonly prompt: string;
  readonly expected_safe: boolean;
}

/** Maximum directory levels walked up looking for package.json. */
const MAX_LEVELS = 6;

export function repoRoot(fromDir: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = fromDir;
  for (let i = 0; i < MAX_LEVELS; i++) {
    if (existsSync(path.join(dir, "package.json"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error("cannot locate the repository root (no package.json above the bench script)");
}

export function corporaDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env["LITTLE_CANARY_CORPORA"];
  if (fromEnv !== undefined && fromEnv !== "") return path.resolve(fromEnv);
  return path.resolve(repoRoot(), "../shared/corpora");
}

function isCase(value: unknown): value is CorpusCase {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v["id"] === "string" &&
    typeof v["category"] === "string" &&
    typeof v["prompt"] === "string" &&
    typeof v["expected_safe"] === "boolean"
  );
}

/** Read one corpus file (a JSON array of cases); throws if a case lacks the expected fields. */
export function loadCorpus(fileName: string, dir: string = corporaDir()): readonly CorpusCase[] {
  const parsed: unknown = JSON.parse(readFileSync(path.join(dir, fileName), "utf8"));
  if (!Array.isArray(parsed)) throw new Error(`${fileName}: expected a JSON array`);
  return parsed.map((value, index) => {
    if (!isCase(value)) throw new Error(`${fileName}: case ${index} lacks id/category/prompt/expected_safe`);
    return value;
  });
}
