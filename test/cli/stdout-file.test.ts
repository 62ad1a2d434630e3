// Standard output redirected to a file (`screen … > out.json`) is one more file of the run: a
// report renamed over that path, or a log appended to it, would silently replace or corrupt the
// batch document the run prints there. Such a run is refused before anything is read.
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli, type BundledCli } from "../support/cli-child.js";

let cli: BundledCli;
let dir: string;
beforeAll(async () => {
  cli = await bundleCli();
  dir = await mkdtemp(join(tmpdir(), "lc-stdout-file-"));
  await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ id: "a", text: "Returns are accepted within 30 days." })}\n`);
}, 60_000);
afterAll(async () => {
  await cli?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Runs the bundled CLI in `dir` with stdout redirected to `out` (truncated first, as a shell does). */
async function runToFile(args: readonly string[], out: string): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(join(dir, out), "w");
  try {
    const child = spawn(process.execPath, [cli.entry, ...args], { cwd: dir, env: { PATH: process.env["PATH"] ?? "" }, stdio: ["ignore", fd, "pipe"] });
    const err: Buffer[] = [];
    child.stderr?.on("data", (chunk: Buffer) => err.push(chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
    return { code, stderr: Buffer.concat(err).toString("utf8") };
  } finally {
    closeSync(fd);
  }
}

describe("standard output redirected to a file", () => {
  it("screen --sarif naming the file stdout is redirected to is refused, naming both, and the file gets no report", async () => {
    const run = await runToFile(["screen", "in.jsonl", "--no-canary", "--sarif", "out.json"], "out.json");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("--sarif names the same file as standard output");
    expect(await readFile(join(dir, "out.json"), "utf8")).toBe("");
  });

  it("ingest with stdout redirected to its --export or --manifest is refused, naming the flag, and nothing is published", async () => {
    for (const [flag, out] of [
      ["--export", "pair.export.json"],
      ["--manifest", "pair.manifest.json"],
    ] as const) {
      const run = await runToFile(["ingest", "in.jsonl", "--manifest", "pair.manifest.json", "--export", "pair.export.json", "--no-canary"], out);
      expect(run.code).toBe(3);
      expect(run.stderr).toContain(`standard output names the same file as ${flag}`);
      // Only the file the redirection made, empty: no pair was published.
      expect(await readFile(join(dir, out), "utf8")).toBe("");
      await rm(join(dir, out));
    }
  });

  it("eval --output or --report naming the file stdout is redirected to is refused, and the file gets nothing", async () => {
    await writeFile(join(dir, "c.json"), JSON.stringify([{ id: "a", prompt: "A plain question about tea.", expected_safe: true }]));
    for (const flag of ["--output", "--report"]) {
      const extra = flag === "--output" ? ["--output", "/dev/stdout"] : ["--output", "run.jsonl", "--report", "/dev/stdout"];
      const run = await runToFile(["eval", "--corpus", "c.json", "--mode", "structural-only", ...extra], "run-out.txt");
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${flag} names the same file as standard output`);
      expect(await readFile(join(dir, "run-out.txt"), "utf8")).toBe("");
    }
  });

  it("ingest with stdout redirected to its input is refused before the input is read", async () => {
    await writeFile(join(dir, "own.jsonl"), "");
    const run = await runToFile(["ingest", "own.jsonl", "--manifest", "own.manifest.json", "--export", "own.export.json", "--no-canary"], "own.jsonl");
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("standard output names the same file as the input");
  });

  it("a report beside the redirected file is not refused: the document lands in the file", async () => {
    const run = await runToFile(["screen", "in.jsonl", "--no-canary", "--sarif", "report.sarif"], "doc.json");
    expect(run.code).toBe(2);
    expect(JSON.parse(await readFile(join(dir, "doc.json"), "utf8"))).toMatchObject({ schema: "little-canary-batch/v1", total: 1 });
  });
});
