// The Ollama judge reads a checked text and the canary's reply: it must send one explicit
// num_ctx large enough for both, or Ollama's default context can cut the judge's prompt silently.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { requiredJudgeContext } from "../../src/judge/ollama-judge.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn({
    reply: (request) => (JSON.stringify(request.body).includes("security classifier") ? "SAFE" : "Here is a short summary of the text."),
  });
});
afterEach(async () => {
  await ollama.close();
});

const judgeCalls = () => ollama.chatRequests().filter((r) => JSON.stringify(r.body).includes("security classifier"));
const numCtxOf = (body: unknown) => (body as { options?: { num_ctx?: unknown } }).options?.num_ctx;

describe("the Ollama judge's context window", () => {
  it("the judge sends one explicit num_ctx that holds a whole window and the canary's reply", async () => {
    const pipeline = new SecurityPipeline({ ollamaUrl: ollama.url, judgeModel: "qwen3:4b", mode: "full" });
    await pipeline.check("Please summarise the returns policy for me.");
    await pipeline.check("日本語の文章です。".repeat(400));
    const calls = judgeCalls();
    expect(calls.length).toBeGreaterThanOrEqual(2);
    const expected = requiredJudgeContext(pipeline.options.maxInputLength, pipeline.options.canaryMaxTokens);
    expect(calls.map((c) => numCtxOf(c.body))).toEqual(calls.map(() => expected));
    // Larger than the canary's own window: the judge's prompt holds the same text and more.
    expect(expected).toBeGreaterThan(pipeline.options.canaryNumCtx as number);
  });

  it("with the canary's num_ctx switched off (canaryNumCtx: null) the judge sends none either", async () => {
    const pipeline = new SecurityPipeline({ ollamaUrl: ollama.url, judgeModel: "qwen3:4b", canaryNumCtx: null, mode: "full" });
    await pipeline.check("Please summarise the returns policy for me.");
    const calls = judgeCalls();
    expect(calls.length).toBe(1);
    expect(numCtxOf(calls[0]?.body)).toBeUndefined();
  });
});
