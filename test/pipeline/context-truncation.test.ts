// A backend that caps the context and keeps the second half of an over-long prompt (Ollama's
// silent truncation) must never produce an exercised pass or an admitted record, whichever entry
// point the text comes through: the probe, check, screen, ingest and the service's /check.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OllamaCanaryProbe } from "../../src/canary/ollama-probe.js";
import { CALIBRATION_PROBE_TEXT, LOWER_BOUND_MARGIN, minimumPromptTokens, psEntryContextLength } from "../../src/canary/run-context.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";
import { requiredCanaryContext } from "../../src/canary/context.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { runCli } from "../support/cli.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, postJson, startService } from "../support/server-harness.js";
import { serviceControl } from "../../src/server/create-server.js";

/** 3,400 CJK characters: about 2,600 stand-in tokens with the system prompt, over a 2,048 cap. */
const CJK_RECORD = "数据安全".repeat(850);
const BENIGN_REPLY = "这是一段关于数据安全的说明。";

let ollama: OllamaStandIn;
let dir: string;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: BENIGN_REPLY, contextCap: 2048, overflow: "keep_half" });
  dir = await mkdtemp(join(tmpdir(), "lc-truncation-"));
});
afterEach(async () => {
  await ollama.close();
});

const sentText = (text: string): boolean => ollama.chatRequests().some((r) => JSON.stringify(r.body).includes(text.slice(0, 40)));

function canaryLayer(verdict: { layers: Array<{ name: string; coverage_reason?: string }> }) {
  return verdict.layers.find((layer) => layer.name === "canary_probe");
}

describe("the probe refuses a run whose loaded context is smaller than num_ctx", () => {
  it("/api/ps reporting 2048 below num_ctx makes every check context_truncated and sends no text", async () => {
    const probe = new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 });
    const result = await probe.test(CJK_RECORD);
    expect(result.success).toBe(false);
    expect(result.failureCode).toBe("context_truncated");
    expect(result.error).toContain("context of 2048 tokens, below the num_ctx 17044");
    expect(ollama.warmUpRequests()).toHaveLength(1);
    expect(ollama.chatRequests()).toHaveLength(0);
    // The refusal holds for the rest of the run, without a second warm-up.
    expect((await probe.test("short")).failureCode).toBe("context_truncated");
    expect(ollama.warmUpRequests()).toHaveLength(1);
    expect(ollama.requests.filter((r) => r.path === "/api/ps")).toHaveLength(1);
  });

  it("the warm-up sends the same num_ctx as the checks (no model reload) and one output token", async () => {
    ollama.setContextCap(null);
    const probe = new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 });
    expect((await probe.test("hello")).success).toBe(true);
    const warmUp = ollama.warmUpRequests()[0]?.body as { options: Record<string, unknown> };
    const check = ollama.chatRequests()[0]?.body as { options: Record<string, unknown> };
    expect(warmUp.options["num_ctx"]).toBe(17044);
    expect(check.options["num_ctx"]).toBe(17044);
    expect(warmUp.options["num_predict"]).toBe(1);
  });

  it("concurrent first checks share one warm-up; a warm-up that cannot connect is retried", async () => {
    ollama.setContextCap(null);
    ollama.setRouteFault("/api/chat", { fault: "drop" });
    const probe = new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044, timeoutSeconds: 5 });
    const failed = await probe.test("hello");
    expect(failed.success).toBe(false);
    expect(failed.failureCode).toBe("unavailable");
    ollama.setRouteFault("/api/chat", null);
    const results = await Promise.all([probe.test("a"), probe.test("b"), probe.test("c")]);
    expect(results.every((r) => r.success)).toBe(true);
    expect(ollama.warmUpRequests()).toHaveLength(2);
  });
});

describe("the per-reply lower bound catches keep-half truncation without /api/ps", () => {
  for (const mode of ["missing", "no_context_length", { contextLength: 65536 }] as const) {
    it(`/api/ps ${typeof mode === "string" ? mode : "reporting a false 65536"}: prompt_eval_count 1026 for a 2,600-token prompt is context_truncated`, async () => {
      ollama.setPs(mode);
      const result = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 }).test(CJK_RECORD);
      expect(result.success).toBe(false);
      expect(result.failureCode).toBe("context_truncated");
      expect(result.metadata["prompt_eval_count"]).toBe(1026);
      expect(result.error).toMatch(/^Canary prompt was truncated by the backend \(prompt_eval_count 1026 is below the \d+ tokens/);
    });
  }

  it("without /api/ps and without prompt_eval_count a reply cannot pass", async () => {
    ollama.setPs("missing");
    ollama.setReply({ content: "fine", prompt_eval_count: null });
    const result = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 }).test("hello");
    expect(result.failureCode).toBe("context_truncated");
    expect(result.error).toContain("Canary context cannot be confirmed: GET /api/ps did not answer");
  });

  // About 3,500 bytes of prose: more than a num_ctx of 1024 can hold at one token per byte. No count
  // says nothing; 700 is a count Ollama could report after keeping half of a cut prompt (under
  // num_ctx − num_predict, and above the calibrated lower bound of the prose).
  it.each([
    ["a reply without prompt_eval_count", null],
    ["a counted reply (Ollama counts only the half it kept)", 700],
  ])("with /api/ps proving a num_ctx smaller than the prompt at one token per byte, %s cannot pass; one whose prompt fits can", async (_what, count) => {
    ollama.setContextCap(null);
    ollama.setReply({ content: "A short summary of the text.", prompt_eval_count: count });
    const long = "Returns are accepted within 30 days of purchase. ".repeat(70);
    const small = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 1024 }).test(long);
    expect(small.success).toBe(false);
    expect(small.failureCode).toBe("context_truncated");
    expect(small.error).toContain("Canary context cannot be confirmed");
    const roomy = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 }).test(long);
    expect(roomy.success).toBe(true);
    expect(roomy.metadata["context_check"]).toBe("api_ps");
  });

  it("a text that fits passes on the lower bound when /api/ps is missing", async () => {
    ollama.setPs("missing");
    const result = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 }).test("What is the capital of France?");
    expect(result.success).toBe(true);
    expect(result.metadata["context_check"]).toBe("lower_bound");
  });

  it("a backend that answers 400 to an over-long prompt is a failure, never a pass", async () => {
    ollama.setContextCap(2048, "reject");
    ollama.setPs({ contextLength: 65536 });
    const result = await new OllamaCanaryProbe({ ollamaUrl: ollama.url, numCtx: 17044 }).test(CJK_RECORD);
    expect(result.success).toBe(false);
    expect(result.failureCode).toBe("http_error");
  });

  it("the lower bound is the prompt's bytes over the calibrated bytes per token times the margin", () => {
    expect(LOWER_BOUND_MARGIN).toBe(1.6);
    expect(minimumPromptTokens("ab", "cdef", 1.25)).toBe(3);
    expect(CALIBRATION_PROBE_TEXT.length).toBeGreaterThan(500);
  });

  it("reads the /api/ps entry of exactly the canary tag (or <tag>:latest), never a prefix", () => {
    const body = {
      models: [
        { name: "qwen2.5:7b", context_length: 1 },
        { name: "llama3:latest", model: "llama3:latest", context_length: 8192 },
      ],
    };
    expect(psEntryContextLength(body, "qwen2.5")).toBe("not_loaded");
    expect(psEntryContextLength(body, "llama3")).toBe(8192);
    expect(psEntryContextLength({ models: [{ name: "m", context_length: "8192" }] }, "m")).toBe("missing");
    expect(psEntryContextLength({ models: {} }, "m")).toBe("invalid");
  });
});

describe("no entry point admits or passes a truncated text", () => {
  it("check sends an explicit num_ctx and reports degraded context_truncated, exit 2", async () => {
    const run = await runCli(["check", "--ollama-url", ollama.url, "--timeout", "5"], { stdin: CJK_RECORD });
    expect(run.code).toBe(2);
    const verdict = JSON.parse(run.stdout);
    expect(verdict.degraded).toBe(true);
    expect(verdict.canary_status).toBe("failed");
    expect(canaryLayer(verdict)?.coverage_reason).toBe("context_truncated");
    const warmUp = ollama.warmUpRequests()[0]?.body as { options: Record<string, unknown> };
    expect(warmUp.options["num_ctx"]).toBe(requiredCanaryContext({ segmentChars: 4000, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 }));
    expect(sentText(CJK_RECORD)).toBe(false);
  });

  it("check with a lying /api/ps is still degraded by the lower bound", async () => {
    ollama.setPs({ contextLength: 65536 });
    const run = await runCli(["check", "--ollama-url", ollama.url, "--timeout", "5"], { stdin: CJK_RECORD });
    expect(run.code).toBe(2);
    expect(canaryLayer(JSON.parse(run.stdout))?.coverage_reason).toBe("context_truncated");
  });

  it("screen marks the item degraded with context_truncated, exit 2", async () => {
    for (const mode of ["normal", { contextLength: 65536 }] as const) {
      ollama.setPs(mode);
      const path = join(dir, "batch.jsonl");
      await writeFile(path, `${JSON.stringify({ id: "cjk", text: CJK_RECORD })}\n`);
      const run = await runCli(["screen", path, "--ollama-url", ollama.url, "--timeout", "5"]);
      expect(run.code).toBe(2);
      const document = JSON.parse(run.stdout);
      expect(document.counts).toMatchObject({ pass: 0, degraded: 1 });
      expect(document.items[0].state).toBe("degraded");
      expect(canaryLayer(document.items[0].verdict)?.coverage_reason).toBe("context_truncated");
    }
  });

  it("ingest exits 3 with nothing written when /api/ps shows the capped context", async () => {
    const path = join(dir, "records.jsonl");
    await writeFile(path, `${JSON.stringify({ id: "cjk", text: CJK_RECORD })}\n`);
    const run = await runCli(
      ["ingest", path, "--manifest", join(dir, "manifest.json"), "--export", join(dir, "export.json"), "--ollama-url", ollama.url, "--timeout", "5"],
      { cwd: dir },
    );
    expect(run.code).toBe(3);
    const numCtx = requiredCanaryContext({ segmentChars: 3500, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 });
    expect(run.stderr).toContain(`context of 2048 tokens, below the num_ctx ${numCtx}`);
    expect((await readdir(dir)).sort()).toEqual(["records.jsonl"]);
    expect(sentText(CJK_RECORD)).toBe(false);
  });

  it("ingest exits 3 with nothing written when /api/ps cannot say what was loaded", async () => {
    ollama.setPs("no_context_length");
    const path = join(dir, "records.jsonl");
    await writeFile(path, `${JSON.stringify({ id: "cjk", text: CJK_RECORD })}\n`);
    const run = await runCli(["ingest", path, "--manifest", join(dir, "manifest.json"), "--ollama-url", ollama.url, "--timeout", "5"], { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain("could not verify the canary's loaded context");
    expect((await readdir(dir)).sort()).toEqual(["records.jsonl"]);
  });

  it("ingest behind a lying /api/ps holds the record as degraded, never admits it", async () => {
    ollama.setPs({ contextLength: 65536 });
    const path = join(dir, "records.jsonl");
    await writeFile(path, `${JSON.stringify({ id: "cjk", text: CJK_RECORD })}\n`);
    const run = await runCli(["ingest", path, "--manifest", join(dir, "manifest.json"), "--json", "--ollama-url", ollama.url, "--timeout", "5"], { cwd: dir });
    const manifest = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8"));
    expect(run.code).not.toBe(0);
    expect(manifest.counts.admitted).toBe(0);
    expect(manifest.counts.held).toBe(1);
    expect(JSON.stringify(manifest.records)).toContain("context_truncated");
  });

  it("the service's /check answers degraded with context_truncated, never an exercised pass", async () => {
    const service = await startService(pipelineFor(ollama.url));
    try {
      const answer = await postJson(service.url, { text: CJK_RECORD });
      expect(answer.status).toBe(200);
      const verdict = (await answer.json()) as { degraded: boolean; canary_status: string; layers: Array<{ name: string; coverage_reason?: string }> };
      expect(verdict.degraded).toBe(true);
      expect(verdict.canary_status).toBe("failed");
      expect(canaryLayer(verdict)?.coverage_reason).toBe("context_truncated");
      expect(sentText(CJK_RECORD)).toBe(false);
    } finally {
      await service.close();
    }
  });

  it("/health reports the capped context once known and is then not ready", async () => {
    const service = await startService(pipelineFor(ollama.url));
    try {
      const before = await serviceControl(service.server)?.health?.refresh();
      expect(before).toMatchObject({ ready: true, canary_context: "unknown" });
      await postJson(service.url, { text: "hello" });
      const after = await serviceControl(service.server)?.health?.refresh();
      expect(after).toMatchObject({ ready: false, status: "degraded", canary_context: "too_small" });
    } finally {
      await service.close();
    }
  });

  it("a pipeline sends num_ctx sized for its largest segment unless told null", () => {
    const pipeline = new SecurityPipeline({ maxInputLength: 1000 });
    expect(pipeline.options.canaryNumCtx).toBe(requiredCanaryContext({ segmentChars: 1000, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 }));
    expect(new SecurityPipeline({ canaryNumCtx: null }).options.canaryNumCtx).toBeNull();
    expect(new SecurityPipeline({ provider: "openai" }).options.canaryNumCtx).toBeNull();
  });
});
