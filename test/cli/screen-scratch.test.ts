// `screen` in a real process: an interrupt while stdin is still being copied to its scratch file
// ends the run (exit 2, nothing on stdout) and removes the copy.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleCli, type BundledCli } from "../support/cli-child.js";

let cli: BundledCli;
let scratch: string;
beforeAll(async () => {
  cli = await bundleCli();
  scratch = await mkdtemp(join(tmpdir(), "lc-screen-scratch-"));
}, 60_000);
afterAll(async () => {
  await cli?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

describe("screen scratch files in a real process", () => {
  // SIGHUP: the terminal or ssh session closed, which interrupts a run as Ctrl-C does.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    it(`${signal} while stdin is open removes the stdin copy and exits 2 with nothing on stdout`, async () => {
      const child = spawn(process.execPath, [cli.entry, "screen", "-", "--no-canary", "--scratch-dir", scratch], {
        env: { PATH: process.env["PATH"] ?? "" },
        stdio: ["pipe", "pipe", "pipe"],
      });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
      child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
      const closed = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      // Part of a batch, and stdin left open: the first pass is waiting for more.
      child.stdin.write(`${JSON.stringify("first item")}\n${JSON.stringify("second item")}\n`);
      const deadline = Date.now() + 20_000;
      while ((await readdir(scratch)).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await readdir(scratch)).filter((name) => name.endsWith(".input.spool"))).toHaveLength(1);
      child.kill(signal);
      const code = await closed;
      child.stdin.destroy();
      expect(code).toBe(2);
      expect(Buffer.concat(out).toString("utf8")).toBe("");
      expect(Buffer.concat(err).toString("utf8")).toBe("error: interrupted; nothing printed\n");
      expect(await readdir(scratch)).toEqual([]);
    }, 30_000);
  }
});
