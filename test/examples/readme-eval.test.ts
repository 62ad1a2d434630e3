// The README's `eval` example must run as written wherever the package is, a clean clone or an
// installed package (which ships no fixtures/): its shell lines make the corpus they name, and the
// structural-only command, run in that directory (only the output moved to a temp directory),
// scores every case with exit 0. The pipeline example needs a live model, so it is not run here.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expect, it } from "vitest";
import { runCli } from "../support/cli.js";

const REPO = resolve(import.meta.dirname, "../..");

it("the README's eval example writes its own corpus, and its structural-only run scores both cases with exit 0", async () => {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Evaluate a model or a policy"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  // The lines before the first `little-canary` command make the corpus (an `echo … > my-cases.json`).
  const lines = block.split("\n");
  const first = lines.findIndex((l) => l.startsWith("little-canary "));
  const setup = lines.slice(0, first).join("\n");
  expect(setup).toContain("> my-cases.json");
  const line = lines.find((l) => l.startsWith("little-canary eval ") && l.includes("--mode structural-only"));
  expect(line).toBeDefined();
  const args = (line ?? "").trim().split(/\s+/).slice(1);
  expect(args[args.indexOf("--corpus") + 1]).toBe("my-cases.json");
  const dir = await mkdtemp(join(tmpdir(), "lc-readme-eval-"));
  try {
    execFileSync("sh", ["-c", setup], { cwd: dir });
    const output = args.indexOf("--output");
    expect(output).toBeGreaterThan(0);
    args[output + 1] = join(dir, "s.jsonl");
    const run = await runCli(args, { cwd: dir });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("2 cases");
    expect(run.stdout).toContain("blocked 1, passed 0");
    const written = (await readFile(join(dir, "s.jsonl"), "utf8")).trim().split("\n");
    expect(written).toHaveLength(4); // header, 2 cases, completion
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
