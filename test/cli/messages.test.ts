// Messages a new user reads: counts pluralised, help text without stray spaces, a progress line
// that stays cleared after an interrupt, and errors that name their file.
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../cli/io.js";
import { createProgress } from "../../cli/progress.js";
import { createIngestReporter } from "../../cli/ingest-reporter.js";
import { run as runIngest } from "../../cli/commands/ingest.js";
import { hookedFs } from "../../bench/_fs-hooks.js";
import { nodePublishFs } from "../../src/publish/fs.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { ingestFlags, testIo } from "../support/ingest-io.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-msg-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A CliIo whose stderr is a terminal, and everything written to it so far. */
function terminalStderr(): { io: CliIo; text: () => string } {
  let text = "";
  const stderr = new Writable({
    write(chunk, _encoding, callback) {
      text += chunk.toString();
      callback();
    },
  });
  return { io: { stderr, stderrIsTTY: true } as unknown as CliIo, text: () => text };
}

describe("messages", () => {
  it("a misspelt required flag is named with the one meant; a missing one is reported missing, with the usage exit code", async () => {
    const cases: Array<[string[], string, number]> = [
      [["ingest", "r.jsonl", "--manifst", "m.json"], "error: unknown option '--manifst'\n(Did you mean --manifest?)", 3],
      [["ingest", "r.jsonl"], "error: required option '--manifest <path>' not specified", 3],
      [["cache", "stats", "--cach", "v.sqlite"], "error: unknown option '--cach'\n(Did you mean --cache?)", 2],
      [["cache", "prune"], "error: required option '--cache <path>' not specified", 2],
      [["eval", "--corpus", "c.json"], "error: required option '--output <file>' not specified", 2],
      [["index", "m.json:e.json"], "error: required option '--out <path>' not specified", 3],
    ];
    for (const [args, message, code] of cases) {
      const run = await runCli(args, { cwd: dir });
      // The message first; the usage may follow it (showHelpAfterError).
      expect(run.stderr.startsWith(`${message}\n`), `${args.join(" ")}: ${run.stderr}`).toBe(true);
      expect(run.code, args.join(" ")).toBe(code);
      expect(run.stdout, args.join(" ")).toBe("");
    }
  });

  it("a refused input names its file in screen and ingest; stdin needs no name", async () => {
    await writeFile(join(dir, "dup.jsonl"), '{"text":"a"}\n{"text":"a","text":"b"}\n');
    const screen = await runCli(["screen", "dup.jsonl", "--no-canary"], { cwd: dir });
    expect(screen.code).toBe(2);
    expect(screen.stderr).toContain(`error: line 2: duplicate key (keys must be unique at every depth) (in ${join(dir, "dup.jsonl")})`);
    const ingest = await runCli(["ingest", "dup.jsonl", "--manifest", "m.json", "--no-canary"], { cwd: dir });
    expect(ingest.code).toBe(3);
    expect(ingest.stderr).toContain(`line 2: duplicate key (keys must be unique at every depth) (in ${join(dir, "dup.jsonl")}); nothing written`);
    const piped = await runCli(["screen", "-", "--no-canary"], { cwd: dir, stdin: '{"text":5}\n' });
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain("error: line 1: 'text' must be a non-empty string\n");
  });

  it("an input path that does not exist or is a directory is refused in the same words by screen and ingest, before any file is made", async () => {
    await mkdir(join(dir, "folder"));
    for (const [given, words] of [
      ["missing.jsonl", 'error: the input "missing.jsonl" does not exist\n'],
      ["folder", 'error: the input "folder" is a directory; give a JSONL file (or - for standard input)\n'],
    ]) {
      const screen = await runCli(["screen", given as string, "--no-canary", "--cache", "v.sqlite"], { cwd: dir });
      const ingest = await runCli(["ingest", given as string, "--manifest", "m.json", "--no-canary"], { cwd: dir });
      expect([screen.code, ingest.code]).toEqual([2, 3]);
      for (const run of [screen, ingest]) {
        expect(run.stdout).toBe("");
        expect(run.stderr.endsWith(words as string)).toBe(true);
      }
    }
    expect((await readdir(dir)).sort()).toEqual(["folder"]);
  });

  it("a one-record ingest says '1 record', not '1 records'", async () => {
    await writeFile(join(dir, "one.jsonl"), `${JSON.stringify({ text: "hello" })}\n`);
    const run = await runCli(["ingest", "one.jsonl", "--manifest", "m.json", "--no-canary"], { cwd: dir });
    expect(run.stdout).toContain("ingest (strict/v1): 1 record, 0 admitted, 1 held");
    expect(run.stdout).not.toMatch(/\b1 records\b/);
  });

  it("verify --help shows its example on two lines without a run of stray spaces", async () => {
    const run = await runCli(["verify", "--help"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("--export admitted.json \\\n    --expect-manifest-sha256");
    expect(run.stdout).not.toMatch(/admitted\.json {2,}--expect/);
  });

  it("a progress line is never drawn again after finish() (a late result after an interrupt)", () => {
    const { io, text: drawn } = terminalStderr();
    let t = 0;
    const progress = createProgress(io, "screen", () => (t += 1000));
    progress.update(1, 3);
    progress.finish();
    const cleared = drawn();
    progress.update(2, 3);
    progress.finish();
    expect(cleared).toContain("screen: 1/3");
    expect(drawn()).toBe(cleared);
  });

  it("a warning during a run takes the progress line's place on a terminal, and the line is drawn again below it", () => {
    const { io, text: drawn } = terminalStderr();
    const reporter = createIngestReporter(io);
    reporter.progress?.(1, 10);
    reporter.warn?.("the canary stopped answering");
    // The next update comes sooner than the line's usual 200 ms pace, and is drawn all the same.
    reporter.progress?.(2, 10);
    reporter.close();
    const text = drawn();
    expect(text).toMatch(/\ringest: 1\/10[^\r]*\x1b\[K\r\x1b\[Kwarning: the canary stopped answering\n\ringest: 2\/10/);
  });

  it("the progress line shows no ETA until a few seconds or a few percent have gone by", () => {
    const { io, text: drawn } = terminalStderr();
    let t = 0;
    const progress = createProgress(io, "ingest", () => (t += 1000));
    progress.update(1, 20_000);
    expect(drawn()).toContain("ingest: 1/20000");
    expect(drawn()).toContain("ETA --:--");
    t += 10_000;
    progress.update(100, 20_000);
    expect(drawn().slice(drawn().lastIndexOf("\r"))).not.toContain("ETA --:--");
    progress.finish();
  });

  describe("publication errors", () => {
    let ollama: OllamaStandIn;
    beforeEach(async () => {
      ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
    });
    afterEach(() => ollama.close());

    it("a write error without a path names the file being written", async () => {
      await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ text: "A note about lakes." })}\n`);
      // Node reports a failed write on an open file handle without a path: the message must still
      // say which file it was.
      const fs = hookedFs(nodePublishFs, (call) => {
        if (call.op === "write") throw Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
      });
      const t = testIo(dir);
      await expect(runIngest("in.jsonl", ingestFlags(ollama.url), t.io, { fs })).rejects.toThrow(
        `ENOSPC while writing the manifest ${join(dir, "m.json")}; nothing published`,
      );
    });
  });
});
