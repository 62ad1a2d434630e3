// A canary model the server does not serve, and a server that does not answer: every command
// says which, where, and the fix in one stderr line, before any item is checked.
import { mkdtempSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { refusedUrl } from "../support/free-port.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { startOpenAIStandIn } from "../support/openai-stand-in.js";

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris.", rejectUnknownModels: true });
});
afterEach(async () => {
  await ollama.close();
});

const missingLine = (url: string) =>
  `error: canary model llama3.2:1b is not available at ${url} (it serves: qwen2.5:1.5b, qwen3:4b); fix: ollama pull llama3.2:1b`;
const batch = Array.from({ length: 3 }, (_, i) => JSON.stringify({ id: `r-${i}`, text: `What is item ${i} made of?` })).join("\n") + "\n";

describe("a canary model that was never pulled", () => {
  it("check refuses with exit 2 and one line naming the model, the URL, what the server serves and the pull", async () => {
    const run = await runCli(["check", "--ollama-url", ollama.url, "--canary-model", "llama3.2:1b"], { stdin: "What is the capital of France?\n" });
    expect(run.stderr).toBe(`${missingLine(ollama.url)}\n`);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("screen refuses with exit 2 before any item is checked", async () => {
    const run = await runCli(["screen", "--ollama-url", ollama.url, "--canary-model", "llama3.2:1b"], { stdin: batch });
    expect(run.stderr).toBe(`${missingLine(ollama.url)}\n`);
    expect(run.code).toBe(2);
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("ingest refuses with exit 3 and the same line, writing nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lc-model-missing-"));
    const input = join(dir, "in.jsonl");
    writeFileSync(input, batch);
    const manifest = join(dir, "m.json");
    const run = await runCli(["ingest", input, "--manifest", manifest, "--ollama-url", ollama.url, "--canary-model", "llama3.2:1b"]);
    expect(run.stderr).toBe(`${missingLine(ollama.url)}\n`);
    expect(run.code).toBe(3);
    expect(existsSync(manifest)).toBe(false);
  });
});

describe("what the model check prints of a server's model list", () => {
  it("an empty inventory says the server serves nothing", async () => {
    ollama.setModels([]);
    const run = await runCli(["check", "--ollama-url", ollama.url, "--canary-model", "llama3.2:1b"], { stdin: "hello" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`error: canary model llama3.2:1b is not available at ${ollama.url} (it serves: nothing); fix: ollama pull llama3.2:1b\n`);
  });

  it("hostile model names are stripped of control characters and cut, and a long list is counted, on one line", async () => {
    const hostile = "evil\n::error title=INJ::pwned\u001b[31m";
    const long = "x".repeat(500);
    const many = Array.from({ length: 30 }, (_, i) => ({ name: `m${i}:1b` }));
    ollama.setModels([{ name: hostile }, { name: long }, ...many]);
    const run = await runCli(["check", "--ollama-url", ollama.url, "--canary-model", "llama3.2:1b"], { stdin: "hello" });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")).toHaveLength(2);
    expect(run.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(run.stderr).toContain("(it serves: evil::error title=INJ::pwned[31m, ");
    expect(run.stderr).toContain(`${"x".repeat(80)}…, m0:1b`);
    expect(run.stderr).not.toContain("x".repeat(81));
    expect(run.stderr).toContain("m9:1b and 20 more); fix: ollama pull llama3.2:1b");
  });

  it("a model name the user typed that is not a plain tag is printed JSON-quoted", async () => {
    const run = await runCli(["check", "--ollama-url", ollama.url, "--canary-model", "my model; rm"], { stdin: "hello" });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: canary model "my model; rm" is not available at');
    expect(run.stderr).toContain('fix: ollama pull "my model; rm"');
  });
});

describe("a canary server that does not answer", () => {
  it("check keeps failing open (degraded, exit 2) and names the URL, the cause and how to start it", async () => {
    const url = await refusedUrl();
    const run = await runCli(["check", "--ollama-url", url], { stdin: "hello" });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ degraded: true });
    expect(run.stderr).toBe(
      `warning: canary at ${url} is not reachable (connection refused): unavailable; the canary did not screen it; fix: start it (ollama serve) or pass --ollama-url\n`,
    );
  });

  it("ingest refuses with exit 3, naming the URL, not the context length", async () => {
    const url = await refusedUrl();
    const dir = mkdtempSync(join(tmpdir(), "lc-unreachable-"));
    const input = join(dir, "in.jsonl");
    writeFileSync(input, batch);
    const run = await runCli(["ingest", input, "--manifest", join(dir, "m.json"), "--ollama-url", url]);
    expect(run.code).toBe(3);
    expect(run.stderr).toBe(`error: canary at ${url} is not reachable (connection refused); fix: start it (ollama serve) or pass --ollama-url\n`);
  });
});

describe("a canary server whose model list cannot be read while its chats answer", () => {
  const problem = (url: string) =>
    `warning: canary at ${url} answered GET /api/tags with HTTP 500, not with a model list; fix: if it is Ollama, see its log for the error; if not, point --ollama-url at Ollama\n`;

  it("check screens the text as before and says so on stderr once, never echoing the server's body", async () => {
    ollama.setRouteFault("/api/tags", { fault: "status", status: 500, body: "tags-body-SECRET" });
    const run = await runCli(["check", "--ollama-url", ollama.url], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true, degraded: false });
    expect(run.stderr).toBe(problem(ollama.url));
    expect(ollama.chatRequests()).toHaveLength(1);
  });

  it("screen checks every item as before and says so on stderr once, never echoing the server's body", async () => {
    ollama.setRouteFault("/api/tags", { fault: "status", status: 500, body: "tags-body-SECRET" });
    const run = await runCli(["screen", "--ollama-url", ollama.url], { stdin: batch });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ total: 3, counts: { pass: 3, degraded: 0 } });
    expect(run.stderr.split("\n").filter((line) => line.startsWith("warning:"))).toEqual([problem(ollama.url).trimEnd()]);
    expect(run.stderr).not.toContain("SECRET");
  });

  it("a model list answered 200 but in another shape says the server may not be the one --ollama-url should name, with no status", async () => {
    ollama.setRouteFault("/api/tags", { fault: "garbage" });
    const run = await runCli(["check", "--ollama-url", ollama.url], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `warning: canary at ${ollama.url} answered, but not with a model list, so it may not be the server --ollama-url should name; fix: point --ollama-url at it\n`,
    );
  });

  it("a model list that does not come before the timeout is not said to have accepted the connection", async () => {
    ollama.setRouteFault("/api/tags", { fault: "hang" });
    const run = await runCli(["check", "--ollama-url", ollama.url, "--timeout", "0.5"], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `warning: canary at ${ollama.url} did not answer GET /api/tags before the timeout; fix: check that the server is running, reachable from here, and not stuck or still starting\n`,
    );
  });

  it("a model list whose connection drops is said to be unread, not the server unreachable, when the checks were answered", async () => {
    ollama.setRouteFault("/api/tags", { fault: "drop" });
    const run = await runCli(["check", "--ollama-url", ollama.url], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true, degraded: false });
    expect(run.stderr).toMatch(
      new RegExp(
        `^warning: canary at ${ollama.url.replace(/[.]/g, "\\.")} answered the checks, but its model list \\(GET /api/tags\\) could not be read \\([^)]+\\); the model it serves was not confirmed\n$`,
      ),
    );
    expect(run.stderr).not.toContain("not reachable");
  });
});

describe("a model removed while a run goes on", () => {
  it("Ollama's 404 'model not found' on a check is coverage_reason model_not_found, and the warning says to pull it", async () => {
    const removed = { fault: "status" as const, status: 404, body: JSON.stringify({ error: "model 'qwen2.5:1.5b' not found" }) };
    // Each item is two checks (its id, then its text), and every one meets the removed model.
    ollama.enqueue(removed, removed, removed, removed, removed, removed);
    const run = await runCli(["screen", "--ollama-url", ollama.url, "--max-canary-failures", "0"], { stdin: batch });
    expect(run.code).toBe(2);
    const document = JSON.parse(run.stdout) as { items: Array<{ state: string; verdict: { layers: Array<{ name: string; coverage_reason?: string }> } }> };
    const reasons = document.items.map((item) => item.verdict.layers.find((layer) => layer.name === "canary_probe")?.coverage_reason);
    expect(reasons).toEqual(["model_not_found", "model_not_found", "model_not_found"]);
    expect(run.stderr).toContain(
      `warning: canary model qwen2.5:1.5b is not available at ${ollama.url} for 3 items of 3: model_not_found; the canary did not screen them; fix: ollama pull qwen2.5:1.5b`,
    );
  });
});

describe("an OpenAI-compatible canary server", () => {
  it("--provider openai keeps an explicit --canary-model, and a model the server does not list is named with what it serves", async () => {
    const api = await startOpenAIStandIn({ models: ["gpt-4o-mini", "llama-3.1-8b"] });
    try {
      const run = await runCli(["check", "--provider", "openai", "--base-url", api.baseUrl, "--canary-model", "qwen2.5:1.5b"], { stdin: "hello" });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        `error: canary model qwen2.5:1.5b is not served at ${api.url} (it serves: gpt-4o-mini, llama-3.1-8b); fix: serve that model there, or give --canary-model one it serves\n`,
      );
      expect(run.stderr).not.toContain("warm-up");
      expect(api.completionRequests()).toHaveLength(0);
    } finally {
      await api.close();
    }
  });

  it("--canary embedded refuses an explicit --canary-model even when it names the default tag", async () => {
    const run = await runCli(["check", "--canary", "embedded", "--canary-model", "qwen2.5:1.5b"], { stdin: "hello" });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe("error: --canary-model names a served model; the embedded canary's model is its file (--canary embedded:PATH)\n");
  });

  it("--provider openai with --canary-model left at its default still uses gpt-4o-mini", async () => {
    const api = await startOpenAIStandIn({ models: ["gpt-4o-mini"], maxModelLen: 32768 });
    try {
      const run = await runCli(["check", "--provider", "openai", "--base-url", api.baseUrl], { stdin: "hello" });
      expect(run.stderr).toBe("");
      expect(run.code).toBe(0);
      expect(api.completionRequests().map((r) => (r.body as { model: string }).model)).toEqual(["gpt-4o-mini"]);
    } finally {
      await api.close();
    }
  });
});
