// `check` prints how much of the text the canary inspected (`coverage`) in its JSON, and an
// unreachable canary is named on stderr once: by the command, not a second time by the library.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../support/cli.js";
import { refusedUrl } from "../support/free-port.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "The capital of France is Paris." });
});
afterEach(async () => {
  await ollama.close();
});

describe("check's verdict JSON carries coverage", () => {
  it("an exercised check prints coverage complete (exit 0)", async () => {
    const run = await runCli(["check", "--ollama-url", ollama.url], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true, degraded: false, coverage: "complete" });
  });

  it("check --no-canary prints safe: true, degraded: false and coverage none (exit 2)", async () => {
    const run = await runCli(["check", "--no-canary"], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true, degraded: false, coverage: "none" });
  });

  it("an unreachable canary prints coverage none, and stderr names the outage in one line", async () => {
    const run = await runCli(["check", "--ollama-url", await refusedUrl()], { stdin: "What is the capital of France?\n" });
    expect(run.code).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({ safe: true, coverage: "none" });
    const lines = run.stderr.split("\n").filter((line) => line.includes("not reachable"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warning: canary at http:\/\/127\.0\.0\.1:\d+ is not reachable /);
    expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  });
});
