// Ctrl-C during `eval`: the run answers at once, not when the canary call in flight reaches its
// timeout, and a second Ctrl-C exits at once whatever the run is still doing.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, test, vi } from "vitest";
import type { CliIo } from "../../cli/io.js";
import { runMain } from "../../cli/program.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

const REPO = resolve(import.meta.dirname, "../..");
// A fixture corpus written for this suite (17 cases).
const PROMPTS = "fixtures/corpora/mixed.json";

class Capture extends Writable {
  text = "";
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

interface Harness {
  readonly io: CliIo;
  readonly stderr: Capture;
  readonly exits: number[];
  trigger(signal: NodeJS.Signals): void;
}

function harness(): Harness {
  const handlers = new Set<(signal: NodeJS.Signals) => void>();
  const stderr = new Capture();
  const exits: number[] = [];
  return {
    io: {
      stdin: Readable.from([]),
      stdout: new Capture(),
      stderr,
      env: {},
      cwd: REPO,
      stderrIsTTY: false,
      onSignal(handler) {
        handlers.add(handler);
        return () => handlers.delete(handler);
      },
      forceExit: (code) => void exits.push(code),
    },
    stderr,
    exits,
    trigger: (signal) => [...handlers].forEach((handler) => handler(signal)),
  };
}

let dir: string;
let ollama: OllamaStandIn;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-eval-int-"));
  ollama = await startOllamaStandIn();
});
afterEach(async () => {
  await ollama.close();
  await rm(dir, { recursive: true, force: true });
});

const args = (out: string): string[] => [
  "eval",
  "--corpus",
  PROMPTS,
  "--mode",
  "model-only",
  "--model",
  "qwen2.5:1.5b",
  "--timeout",
  "20",
  "--ollama-url",
  ollama.url,
  "--output",
  out,
];

describe("eval interrupts", () => {
  test("Ctrl-C during a hung canary call ends the run at once, not after --timeout 20", async () => {
    const h = harness();
    let chats = 0;
    ollama.setReply(() => {
      chats++;
      if (chats < 3) return "Hello.";
      setTimeout(() => h.trigger("SIGINT"), 100);
      return { fault: "hang" };
    });
    const out = join(dir, "i.jsonl");
    // The backend hangs for good: only the interrupt can end the run (else the test times out).
    const code = await runMain(args(out), h.io);
    expect(code).toBe(2);
    expect(h.stderr.text).toContain("interrupted after 2 of 17 cases; the output has no completion line");
    const lines = (await readFile(out, "utf8"))
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string });
    expect(lines.map((l) => l.type)).toEqual(["run", "result", "result"]);
    expect(h.exits).toEqual([]);
  });

  test("Ctrl-C while the backend check hangs ends the run before anything is written", async () => {
    const h = harness();
    ollama.setRouteFault("/api/tags", { fault: "hang" });
    const out = join(dir, "b.jsonl");
    // The backend check hangs for good: only the interrupt can end the run (else the test times out).
    // It is sent once the check reached the backend, so the run is surely waiting on it, however slowly it started.
    const running = runMain(args(out), h.io);
    await vi.waitFor(() => expect(ollama.requests.some((r) => r.path === "/api/tags")).toBe(true), { timeout: 20_000, interval: 10 });
    h.trigger("SIGINT");
    const code = await running;
    expect(code).toBe(2);
    expect(h.stderr.text).toContain("interrupted before the first case; no output was written");
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });

  test("a second Ctrl-C exits at once with 130", async () => {
    const h = harness();
    ollama.setReply(() => {
      setTimeout(() => {
        h.trigger("SIGINT");
        h.trigger("SIGINT");
      }, 50);
      return { fault: "hang" };
    });
    const code = await runMain(args(join(dir, "s.jsonl")), h.io);
    expect(h.exits).toEqual([130]);
    expect(code).toBe(2);
  });
});

describe("eval messages", () => {
  test("a missing --model names the real flag, a missing corpus names its file, an unavailable model is one readable line", async () => {
    const h1 = harness();
    expect(await runMain(["eval", "--corpus", PROMPTS, "--mode", "pipeline", "--output", join(dir, "a.jsonl")], h1.io)).toBe(2);
    expect(h1.stderr.text).toContain("--model is required with --mode pipeline");
    expect(h1.stderr.text).not.toContain("--canary/");
    const h2 = harness();
    expect(await runMain(["eval", "--corpus", join(dir, "nope.json"), "--output", join(dir, "b.jsonl")], h2.io)).toBe(2);
    expect(h2.stderr.text).toContain(`corpus 1 (${join(dir, "nope.json")}): cannot be read (ENOENT)`);
    const h3 = harness();
    ollama.setModels([]);
    expect(await runMain(["eval", "--corpus", PROMPTS, "--model", "absent:1b", "--ollama-url", ollama.url, "--output", join(dir, "c.jsonl")], h3.io)).toBe(2);
    expect(h3.stderr.text).toBe(`error: canary model absent:1b is not available at ${ollama.url} (it serves: nothing); fix: ollama pull absent:1b\n`);
  });
});
