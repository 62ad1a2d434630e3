// With no input file and a terminal on stdin, check, screen and ingest say on stderr that they
// are reading stdin and how to end or avoid it, instead of waiting in silence. Piped stdin gets
// no hint (stderr stays clean for scripts).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../cli/io.js";
import { runMain } from "../../cli/program.js";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-hint-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function run(argv: string[], stdinIsTTY: boolean, stdin = ""): Promise<{ code: number; stderr: string }> {
  const stderr = new Capture();
  const io: CliIo = {
    stdin: Readable.from(stdin === "" ? [] : [Buffer.from(stdin)]),
    stdout: new Capture(),
    stderr,
    env: {},
    cwd: dir,
    stderrIsTTY: false,
    stdinIsTTY,
    onSignal: () => () => undefined,
  };
  return { code: await runMain(argv, io), stderr: stderr.text };
}

const HINT = /^reading .* from stdin \(a terminal\): type it and end with Ctrl-D, or pipe it in, or /m;

describe("a terminal on stdin", () => {
  it("check without --text prints the stdin hint, naming --text", async () => {
    const result = await run(["check", "--no-canary"], true, "hello\n");
    expect(result.stderr).toMatch(HINT);
    expect(result.stderr).toContain("pass --text");
    expect((await run(["check", "--no-canary"], false, "hello\n")).stderr).not.toMatch(HINT);
    expect((await run(["check", "--no-canary", "--text", "hello"], true)).stderr).not.toMatch(HINT);
  });

  it("screen and ingest reading stdin print the hint, naming FILE", async () => {
    const line = `${JSON.stringify({ text: "hello" })}\n`;
    const screen = await run(["screen", "--no-canary"], true, line);
    expect(screen.stderr).toMatch(HINT);
    expect(screen.stderr).toContain("pass FILE");
    const ingest = await run(["ingest", "-", "--manifest", "m.json", "--no-canary"], true, line);
    expect(ingest.stderr).toMatch(HINT);
    expect(ingest.stderr).toContain("pass FILE");
    expect((await run(["screen", "--no-canary"], false, line)).stderr).not.toMatch(HINT);
  });
});
