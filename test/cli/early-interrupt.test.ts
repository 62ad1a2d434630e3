// An interrupt that comes while the CLI is still loading (before a command registered its handler)
// is held and handed to the command's handler; when no command claims it, it ends the process as
// it would have, a moment later. Real processes: a signal cannot be faked in-process.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleScript, type BundledCli } from "../support/cli-child.js";

let child: BundledCli;
beforeAll(async () => {
  child = await bundleScript(join(import.meta.dirname, "../support/early-interrupt-child.ts"));
}, 120_000);
afterAll(async () => {
  await child?.dispose();
});

function run(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child.entry, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    const out: Buffer[] = [];
    proc.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    proc.on("error", reject);
    proc.on("close", (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out).toString("utf8") }));
  });
}

describe("interrupts before a command's handler", () => {
  it.each(["SIGINT", "SIGTERM", "SIGHUP"])("%s sent while loading reaches the handler registered afterwards", async (signal) => {
    expect(await run([signal])).toEqual({ code: 0, signal: null, stdout: `handled ${signal}\n` });
  });

  it("an interrupt no handler claims ends the process with that signal", async () => {
    expect(await run(["SIGTERM", "unclaimed"])).toEqual({ code: null, signal: "SIGTERM", stdout: "" });
  });
});

describe("a command that takes no interrupts (check)", () => {
  it("an interrupt held while the program loaded ends it as the command starts: no verdict is printed", async () => {
    // Without the release, the held interrupt would wait while the check ran to its verdict.
    expect(await run(["SIGINT", "check"])).toEqual({ code: null, signal: "SIGINT", stdout: "" });
  });
});
