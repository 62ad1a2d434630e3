// The README's `eval` example must run from a clean clone: its corpus is a file of this repository,
// and the command, run from the repository's root as written (only the output moved to a temp
// directory), scores every case with exit 0. The example that uses `my-cases.json` stands for the
// reader's own corpus and a live model, so only the structural-only one is run here.
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve, sep } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../support/cli.js";

const REPO = resolve(import.meta.dirname, "../..");

it("the README's structural-only eval example names a corpus in the repository and runs with exit 0", async () => {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => l.startsWith("little-canary eval ") && l.includes("--mode structural-only"));
  expect(line).toBeDefined();
  const args = (line ?? "").trim().split(/\s+/).slice(1);
  const corpus = args[args.indexOf("--corpus") + 1] ?? "";
  // Inside the repository (a path that leaves it is missing from a fresh clone) and present.
  expect(resolve(REPO, corpus).startsWith(REPO + sep), `${corpus} is outside the repository`).toBe(true);
  expect(existsSync(join(REPO, corpus)), `${corpus} is not in the repository`).toBe(true);
  const dir = await mkdtemp(join(tmpdir(), "lc-readme-eval-"));
  try {
    const output = args.indexOf("--output");
    expect(output).toBeGreaterThan(0);
    args[output + 1] = join(dir, "s.jsonl");
    const run = await runCli(args, { cwd: REPO });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("17 cases");
    const lines = (await readFile(join(dir, "s.jsonl"), "utf8")).trim().split("\n");
    expect(lines).toHaveLength(19); // header, 17 cases, completion
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
