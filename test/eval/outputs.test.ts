// What a run leaves on disk and says when it does not end well: an interrupted rerun never leaves
// the earlier run's report beside its partial record, a full disk leaves a record of whole lines,
// and a canary outage is told once with a fix that names only options eval accepts. The canary is
// the loopback Ollama stand-in; the full disk is an injected EvalFs over real temp files.
import { Readable, Writable } from "node:stream";
import { readFile, stat, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { define } from "../../cli/commands/eval.js";
import type { CliIo } from "../../cli/io.js";
import { runEval } from "../../src/eval/run.js";
import { nodeEvalFs, type EvalFs } from "../../src/eval/sink.js";
import { runEvalCli } from "../support/eval-cli.js";
import { startOllamaStandIn } from "../support/ollama-stand-in.js";
import { tempDirPerTest } from "../support/temp-dir.js";

const REPO = resolve(import.meta.dirname, "../..");
// A fixture corpus written for this suite (17 cases: 12 attacks, 5 benign).
const PROMPTS = "fixtures/corpora/mixed.json";
const TOTAL = 17;

const temp = tempDirPerTest("lc-eval-out-");

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** The record's lines, each parsed: a torn line fails the parse. */
async function recordTypes(path: string): Promise<string[]> {
  const text = await readFile(path, "utf8");
  if (text === "") return [];
  expect(text.endsWith("\n")).toBe(true);
  return text
    .trimEnd()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** A finished structural-only run: its record and report, the "earlier run" of a rerun. */
async function earlierRun(out: string, report: string): Promise<void> {
  const run = await runEvalCli(["--corpus", PROMPTS, "--output", out, "--report", report], { cwd: REPO });
  expect(run.code).toBe(0);
  expect(await exists(report)).toBe(true);
}

describe("the report beside the record", () => {
  test("an interrupted rerun removes the earlier run's report, so no report stands beside its partial record", async () => {
    const out = join(temp.dir, "run.jsonl");
    const report = join(temp.dir, "run.html");
    await earlierRun(out, report);
    const ollama = temp.closeAfter(await startOllamaStandIn({ latencyMs: 20 }));
    const signals: { trigger?: () => void } = {};
    let seen = 0;
    ollama.setReply(() => {
      seen++;
      if (seen === 3) signals.trigger?.();
      return "Hello.";
    });
    const args = ["--corpus", PROMPTS, "--mode", "model-only", "--model", "qwen2.5:1.5b", "--ollama-url", ollama.url, "--output", out, "--report", report];
    const run = await runEvalCli(args, { cwd: REPO, signals });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`interrupted after 2 of ${TOTAL} cases; the output has no completion line and no report was written`);
    expect(await recordTypes(out)).toEqual(["run", "result", "result"]);
    expect(await exists(report)).toBe(false);
  });

  test("a rerun refused before its first case leaves the earlier record and its report together, untouched", async () => {
    const out = join(temp.dir, "run.jsonl");
    const report = join(temp.dir, "run.html");
    await earlierRun(out, report);
    const [record, page] = [await readFile(out), await readFile(report)];
    const ollama = temp.closeAfter(await startOllamaStandIn({ models: [] }));
    const run = await runEvalCli(
      ["--corpus", PROMPTS, "--mode", "model-only", "--model", "qwen2.5:1.5b", "--ollama-url", ollama.url, "--output", out, "--report", report],
      { cwd: REPO },
    );
    expect(run.code).toBe(2);
    expect(await readFile(out)).toEqual(record);
    expect(await readFile(report)).toEqual(page);
  });

  test("a --report path holding another file is refused before the run and left as it was", async () => {
    const out = join(temp.dir, "run.jsonl");
    const notes = join(temp.dir, "notes.md");
    await writeFile(notes, "my notes\n");
    const run = await runEvalCli(["--corpus", PROMPTS, "--output", out, "--report", notes], { cwd: REPO });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`--report: ${notes} exists and is not a little-canary eval report; it is never replaced`);
    expect(await readFile(notes, "utf8")).toBe("my notes\n");
    expect(await exists(out)).toBe(false);
  });

  test("the library refuses a corpus named as the report, and the corpus is left as it was", async () => {
    const corpus = join(temp.dir, "corpus.json");
    await writeFile(corpus, await readFile(PROMPTS));
    const before = await readFile(corpus);
    const error = await runEval({ corpus: [corpus], output: join(temp.dir, "run.jsonl"), report: corpus, cwd: REPO }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("is not a little-canary eval report");
    expect(await readFile(corpus)).toEqual(before);
  });

  test("a record that cannot be opened leaves the earlier report where it was", async () => {
    const out = join(temp.dir, "run.jsonl");
    const report = join(temp.dir, "run.html");
    await earlierRun(out, report);
    const page = await readFile(report);
    const fs: EvalFs = {
      ...nodeEvalFs,
      openRecord: () => Promise.reject(Object.assign(new Error("EACCES: permission denied"), { code: "EACCES" })),
    };
    const error = await runEval({ corpus: [PROMPTS], output: out, report, cwd: REPO, fs }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("--output: cannot write");
    expect(await readFile(report)).toEqual(page);
  });

  test("a full disk during the record leaves whole lines, no report, and an error naming --output, the file and ENOSPC", async () => {
    const out = join(temp.dir, "run.jsonl");
    const report = join(temp.dir, "run.html");
    await earlierRun(out, report);
    // Room for the header and a few results: the disk fills part-way through a later line.
    const capacity = (await readFile(out, "utf8")).split("\n").slice(0, 4).join("\n").length + 30;
    const fs: EvalFs = {
      ...nodeEvalFs,
      async openRecord(path) {
        const real = await nodeEvalFs.openRecord(path);
        return {
          async write(data, offset, length, position) {
            const room = capacity - position;
            if (room <= 0) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
            return real.write(data, offset, Math.min(length, room), position);
          },
          truncate: (length) => real.truncate(length),
          datasync: () => real.datasync(),
          close: () => real.close(),
        };
      },
    };
    const error = await runEval({ corpus: [PROMPTS], output: out, report, cwd: REPO, fs }).catch((e: unknown) => e);
    expect((error as Error).message).toBe(`--output: cannot write ${out} (ENOSPC; it keeps only whole lines and has no completion line)`);
    const types = await recordTypes(out);
    expect(types[0]).toBe("run");
    expect(types).not.toContain("complete");
    expect(await exists(report)).toBe(false);
  });
});

/** The long options `eval` accepts, read from its command definition. */
function evalOptions(): Set<string> {
  const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
  const io: CliIo = { stdin: Readable.from([]), stdout: sink, stderr: sink, env: {}, cwd: REPO, stderrIsTTY: false, onSignal: () => () => undefined };
  const command = define(io, { command: "eval", exitCode: 0 });
  return new Set(command.options.flatMap((option) => (option.long === undefined ? [] : [option.long])));
}

describe("a canary outage during eval", () => {
  test("is told once after the cases, with a fix that names only options eval accepts (never --fail-closed)", async () => {
    const ollama = temp.closeAfter(await startOllamaStandIn({ reply: (_req, index) => (index % 2 === 1 ? { fault: "hang" } : "Hello.") }));
    const lines: string[] = [];
    const summary = await runEval({
      corpus: [PROMPTS],
      mode: "model-only",
      model: "qwen2.5:1.5b",
      ollamaUrl: ollama.url,
      timeoutSeconds: 0.3,
      output: join(temp.dir, "t.jsonl"),
      cwd: REPO,
      onWarning: (line) => lines.push(line),
    });
    const timedOut = Math.floor(TOTAL / 2);
    expect(summary.unscored).toBe(timedOut);
    expect(lines).toHaveLength(1);
    const warning = lines[0] as string;
    expect(warning).toMatch(/^warning: .*\n$/);
    expect(warning).toContain(`did not answer before the timeout for ${timedOut} cases of ${TOTAL}, left unscored`);
    expect(warning).toContain("raise --timeout (now 0.3s)");
    expect(warning).not.toMatch(/fail-closed|fail-open|onDegraded/);
    const accepted = evalOptions();
    const named = warning.match(/--[a-z][a-z-]*/g) ?? [];
    expect(named.length).toBeGreaterThan(0);
    for (const flag of named) expect(accepted, flag).toContain(flag);
  });

  test("from the CLI, the warning goes to the command's stderr once, as the command's own warnings do", async () => {
    const ollama = temp.closeAfter(await startOllamaStandIn({ reply: { fault: "drop" } }));
    const out = join(temp.dir, "c.jsonl");
    const run = await runEvalCli(
      ["--corpus", PROMPTS, "--mode", "model-only", "--model", "qwen2.5:1.5b", "--timeout", "5", "--ollama-url", ollama.url, "--output", out],
      { cwd: REPO },
    );
    // Every case unscored: the run measured nothing and says so after the warning.
    expect(run.code).toBe(2);
    const warnings = run.stderr.split("\n").filter((line) => line.includes("warning:"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^warning: canary at .* is not reachable.*for 17 cases of 17, left unscored/);
    expect(run.stdout).not.toContain("warning:");
  });

  test("an unreachable canary is told as such, with the server to start or --ollama-url", async () => {
    const ollama = temp.closeAfter(await startOllamaStandIn({ reply: { fault: "drop" } }));
    const lines: string[] = [];
    await runEval({
      corpus: [PROMPTS],
      mode: "model-only",
      model: "qwen2.5:1.5b",
      ollamaUrl: ollama.url,
      timeoutSeconds: 5,
      output: join(temp.dir, "u.jsonl"),
      cwd: REPO,
      onWarning: (line) => lines.push(line),
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`for ${TOTAL} cases of ${TOTAL}, left unscored`);
    expect(lines[0]).not.toContain("fail-closed");
    for (const flag of (lines[0] as string).match(/--[a-z][a-z-]*/g) ?? []) expect(evalOptions(), flag).toContain(flag);
  });
});
