// How a finished command ends its process, in a real process. A natural exit (the event loop
// running dry) tears the process down with its signal handlers already closed, so an interrupt
// landing in those milliseconds killed a run that had printed its result (exit 130 after an
// ingest summary). The CLI therefore exits explicitly once nothing is left to run, with its
// command's code, while its handler that ignores late interrupts is still in place. A preloaded
// module records the explicit exit; timing a signal into the window would be a flaky test.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli, type BundledCli } from "../support/cli-child.js";

let cli: BundledCli;
let dir: string;
beforeAll(async () => {
  cli = await bundleCli();
  dir = mkdtempSync(join(tmpdir(), "lc-exit-"));
  writeFileSync(join(dir, "in.jsonl"), `${JSON.stringify({ id: "a", text: "The quarterly report is attached." })}\n`);
  // Reports each explicit exit and whether an interrupt handler was installed at that moment.
  writeFileSync(
    join(dir, "record-exit.mjs"),
    `const exit = process.exit.bind(process);
process.exit = (code) => { process.stderr.write("explicit exit " + code + " handlers " + process.listenerCount("SIGINT") + "\\n"); return exit(code); };\n`,
  );
}, 60_000);
afterAll(async () => {
  await cli?.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function run(args: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", join(dir, "record-exit.mjs"), cli.entry, ...args], { cwd: dir, env: { PATH: process.env["PATH"] ?? "" } });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stderr })));
}

describe("a finished command", () => {
  it("exits explicitly with its code, an interrupt handler still installed (ingest, exit 2; verify, exit 0)", async () => {
    const ingest = await run(["ingest", "in.jsonl", "--no-canary", "--manifest", "m.json", "--export", "e.json"]);
    expect(ingest.code).toBe(2);
    expect(ingest.stderr).toMatch(/explicit exit 2 handlers [1-9]/);
    const verify = await run(["verify", "--manifest", "m.json", "--export", "e.json"]);
    expect(verify.code).toBe(0);
    expect(verify.stderr).toMatch(/explicit exit 0 handlers [1-9]/);
  }, 60_000);
});
