// Standard input redirected from a directory (`< somedir`) in a real process: each command that
// reads stdin says so and fails, instead of reading it as an empty input.
import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli, type BundledCli } from "../support/cli-child.js";

let cli: BundledCli;
let dir: string;
beforeAll(async () => {
  cli = await bundleCli();
  dir = mkdtempSync(join(tmpdir(), "lc-stdin-dir-"));
}, 60_000);
afterAll(async () => {
  await cli?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function runWithDirectoryStdin(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const fd = openSync(dir, "r");
  try {
    const child = spawn(process.execPath, [cli.entry, ...args], { cwd: dir, env: { PATH: process.env["PATH"] ?? "" }, stdio: [fd, "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
  } finally {
    closeSync(fd);
  }
}

describe.skipIf(process.platform === "win32")("standard input that is a directory", () => {
  const MESSAGE = "error: standard input is a directory; redirect a file (< records.jsonl) or pass the file's path\n";
  it.each([
    [["check", "--no-canary"], 2],
    [["screen", "--no-canary"], 2],
    [["ingest", "--no-canary", "--manifest", "m.json"], 3],
  ])(
    "%j fails naming it (exit %i), nothing on stdout",
    async (args, code) => {
      const run = await runWithDirectoryStdin(args);
      expect(run.code).toBe(code);
      expect(run.stdout).toBe("");
      expect(run.stderr).toContain(MESSAGE);
      expect(run.stderr).not.toMatch(/no (input text|items|records)/);
    },
    30_000,
  );
});
