// A file name cannot smuggle a CI workflow command into the output: a runner reads every line
// that starts with `::` (after blanks) as a command (`::error`, `::add-mask::`, `::stop-commands::`),
// and .NET readers end a line at CR too. Whatever a refused command prints on stderr, no line of
// it may start with `::`, and the path is shown JSON-quoted with its line break escaped.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

const INJECTED = "x\n::error title=INJ::pwned.jsonl";
/** Every separator a log reader may end a line at, each before a command. */
const SEPARATORS = ["\n", "\r", "\r\n", "\u2028", "\u2029", "\u0085", "\v", "\f"];

let dir: string;
let ollama: OllamaStandIn;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lc-inject-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
});
afterEach(async () => {
  await ollama.close();
});

/** Lines as a log reader splits them: at LF, CR, CRLF, NEL and the Unicode separators. */
const logLines = (text: string): string[] => text.split(/\r\n|[\n\r\v\f\u0085\u2028\u2029]/u);
const commandLines = (text: string): string[] => logLines(text).filter((line) => line.trimStart().startsWith("::"));

/** A file named `name` in the test directory holding `content`; its path. */
async function file(name: string, content: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

describe("a file name holding a line break and a workflow command", () => {
  it("screen refuses it with the path JSON-quoted and no line starting with '::'", async () => {
    const path = await file(INJECTED, `${JSON.stringify({ text: "hi", extra: 1 })}\n`);
    const run = await runCli(["screen", path, "--ollama-url", ollama.url]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(commandLines(run.stderr)).toEqual([]);
    expect(run.stderr).toContain(JSON.stringify(path));
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });

  it("ingest refuses it with the path JSON-quoted and no line starting with '::'", async () => {
    const path = await file(INJECTED, '\uFEFF"a text"\n');
    const run = await runCli(["ingest", path, "--manifest", join(dir, "m.json"), "--no-canary"]);
    expect(run.code).toBe(3);
    expect(commandLines(run.stderr)).toEqual([]);
    expect(run.stderr).toContain(JSON.stringify(path));
  });

  it("verify refuses a manifest of that name with the path JSON-quoted and no line starting with '::'", async () => {
    const path = await file(INJECTED, "not json\n");
    const run = await runCli(["verify", "--manifest", path]);
    expect(run.code).toBe(3);
    expect(commandLines(run.stderr + run.stdout)).toEqual([]);
    expect(run.stderr + run.stdout).toContain(JSON.stringify(path).slice(1, -1));
  });
});

describe("no refused command prints a line starting with '::', whatever the names it was given", () => {
  /** The invocations of one hostile name `p` (a path that does not exist or cannot be used), by command. */
  const invocations = (p: string, ok: string, url: string): string[][] => [
    ["screen", p, "--ollama-url", url],
    ["screen", ok, "--ollama-url", url, "--cache", join(p, "c.sqlite")],
    ["screen", ok, "--ollama-url", url, "--sarif", join(p, "r.sarif")],
    ["screen", ok, "--ollama-url", url, "--junit", join(p, "r.xml")],
    ["screen", "-", "--ollama-url", url, "--scratch-dir", join(p, "s")],
    ["ingest", p, "--manifest", join(dir, "m.json"), "--no-canary"],
    ["ingest", ok, "--manifest", join(p, "m.json"), "--no-canary"],
    ["ingest", ok, "--manifest", join(dir, "m2.json"), "--export", join(p, "e.jsonl"), "--no-canary"],
    ["ingest", ok, "--manifest", join(dir, "m3.json"), "--allow", p, "--no-canary"],
    ["ingest", ok, "--manifest", join(dir, "m4.json"), "--cache", join(p, "c.sqlite"), "--no-canary"],
    ["verify", "--manifest", p],
    ["verify", "--index", p],
    ["index", "--out", join(dir, "i.json"), p],
    ["cache", "stats", "--cache", p],
    ["cache", "prune", "--cache", p, "--older-than", "1d"],
    ["eval", "--corpus", p, "--output", join(dir, "o.jsonl")],
    ["demo", "--capture", p],
    ["model", "pull", "--model-dir", join(p, "m"), "--from", "http://127.0.0.1:9/x"],
    ["check", "--ollama-url", `http://127.0.0.1:9/${p}`, "hello"],
    ["screen", ok, "--canary-model", p, "--ollama-url", url],
    // An unknown option is echoed by the option parser itself, not by a message of ours.
    ["screen", `--${p}`],
    ["ingest", ok, `--${p}`],
  ];

  it("for each separator, in every command that takes a path, id or name", async () => {
    const ok = await file("ok.jsonl", `${JSON.stringify({ text: "What is the capital of France?" })}\n`);
    await mkdir(join(dir, "sub"), { recursive: true });
    let runs = 0;
    const leaks: Array<{ argv: string[]; stream: string; line: string }> = [];
    for (const separator of SEPARATORS) {
      const name = `x${separator}::error title=INJ::pwned${separator}::add-mask::secret`;
      for (const p of [join(dir, "sub", name), name]) {
        for (const argv of invocations(p, ok, ollama.url)) {
          const run = await runCli(argv, { cwd: dir, stdin: "" });
          for (const line of commandLines(run.stderr)) leaks.push({ argv, stream: "stderr", line });
          for (const line of run.stdout.split(/\r\n|[\n\r]/u).filter((l) => l.trimStart().startsWith("::"))) leaks.push({ argv, stream: "stdout", line });
          runs++;
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(runs).toBe(SEPARATORS.length * 2 * invocations("", "", "").length);
  }, 120_000);
});
