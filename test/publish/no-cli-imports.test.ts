// The library owns the publication and screening sequences: the benchmarks, these publication
// tests and the library itself reach them through src/, never through the CLI.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = new URL("../../", import.meta.url).pathname;

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(join(ROOT, dir), { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".ts")).map((entry) => join(entry.parentPath, entry.name));
}

/** Files among `files` with an import or re-export whose path goes into cli/. */
async function importingCli(files: string[]): Promise<string[]> {
  const offenders: string[] = [];
  for (const file of files) {
    const source = await readFile(file, "utf8");
    if (/^\s*(?:import|export)\b[^;]*?from\s+["'](?:\.\.\/)+cli\//m.test(source) || /import\(\s*["'](?:\.\.\/)+cli\//.test(source)) {
      offenders.push(file.slice(ROOT.length));
    }
  }
  return offenders;
}

describe("no cli/ imports below the CLI", () => {
  it("nothing under src/, test/publish/ or bench/ imports a cli/ module", async () => {
    const files = [...(await tsFiles("src")), ...(await tsFiles("test/publish")), ...(await tsFiles("bench"))];
    expect(files.length).toBeGreaterThan(20);
    expect(await importingCli(files)).toEqual([]);
  });

  it("the check sees an import of the CLI (it is not vacuous)", async () => {
    expect(await importingCli([join(ROOT, "test/cli/interrupt-after-commit.test.ts")])).toEqual(["test/cli/interrupt-after-commit.test.ts"]);
  });
});
