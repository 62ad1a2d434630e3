// The Ollama canary probe against a real loopback stand-in: every failure it reports (with its
// code and text), the context checks, the model digest and the possibly-truncated reply rule.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UsageError } from "../../src/core/errors.js";
import { OllamaCanaryProbe, type OllamaCanaryProbeOptions } from "../../src/canary/ollama-probe.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";
import { requiredCanaryContext } from "../../src/canary/context.js";
import type { CanaryResult } from "../../src/canary/types.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { freePort } from "../support/free-port.js";
import { startLoopbackServer } from "../support/loopback-server.js";

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn();
});
afterEach(async () => {
  await ollama.close();
});

function probe(options: OllamaCanaryProbeOptions = {}): OllamaCanaryProbe {
  return new OllamaCanaryProbe({ ollamaUrl: ollama.url, ...options });
}

function expectFailure(result: CanaryResult, code: string, error: string): void {
  expect(result.success).toBe(false);
  expect(result.response).toBe("");
  expect(result.failureCode).toBe(code);
  expect(result.error).toBe(error);
}

const NOT_A_STRING = "Ollama protocol error: response content must be a non-empty string";
const INCOMPLETE = "Ollama protocol error: incomplete chat response";

describe("a successful chat", () => {
  it("returns the reply verbatim with the backend's numbers as metadata", async () => {
    ollama.setReply({ content: "  Paris is the capital of France.\n", prompt_eval_count: 61, eval_count: 9 });
    const result = await probe().test("What is the capital of France?");
    expect(result.success).toBe(true);
    expect(result.response).toBe("  Paris is the capital of France.\n");
    expect(result.failureCode).toBeNull();
    expect(result.error).toBeNull();
    expect(result.model).toBe("qwen2.5:1.5b");
    expect(result.metadata).toEqual({
      done_reason: "stop",
      total_duration: 1_000_000,
      load_duration: 100_000,
      prompt_eval_count: 61,
      eval_count: 9,
      eval_duration: 500_000,
      // No num_ctx was sent, so /api/ps proves nothing; the calibrated lower bound vouched for it.
      context_check: "lower_bound",
    });
  });

  it("sends exactly the documented request body, with num_ctx only when set", async () => {
    await probe().test("hello");
    await probe({ numCtx: 15044 }).test("hello");
    const [plain, withCtx] = ollama.chatRequests();
    expect(plain?.body).toEqual({
      model: "qwen2.5:1.5b",
      messages: [
        { role: "system", content: DEFAULT_CANARY_SYSTEM_PROMPT },
        { role: "user", content: "hello" },
      ],
      stream: false,
      think: false,
      options: { num_predict: 256, temperature: 0, seed: 42 },
    });
    expect((withCtx?.body as { options: unknown } | undefined)?.options).toEqual({
      num_predict: 256,
      temperature: 0,
      seed: 42,
      num_ctx: 15044,
    });
  });

  it("strips a trailing slash from the URL", async () => {
    const result = await probe({ ollamaUrl: `${ollama.url}/` }).test("hi");
    expect(result.success).toBe(true);
    expect(ollama.chatRequests()[0]?.path).toBe("/api/chat");
  });

  it("keeps only finite non-negative metadata numbers", async () => {
    ollama.setReply({ rawBody: { message: { content: "ok" }, done: true, done_reason: "stop", eval_count: -1, total_duration: "7", load_duration: 1e400 } });
    // num_ctx is sent and /api/ps confirms it, so a reply without prompt_eval_count can pass.
    const result = await probe({ numCtx: 8192 }).test("hi");
    expect(result.success).toBe(true);
    expect(result.metadata["context_check"]).toBe("api_ps");
    expect(result.metadata["eval_count"]).toBeNull();
    expect(result.metadata["total_duration"]).toBeNull();
    expect(result.metadata["load_duration"]).toBeNull();
  });

  it("measures latency with the injected clock", async () => {
    let t = 1000;
    const result = await probe({ now: () => (t += 250) }).test("hi");
    expect(result.latency).toBe(0.25);
  });
});

describe("the failure table", () => {
  it("a model that is not installed (or was removed) is model_not_found, on the warm-up and on a check", async () => {
    ollama.setRejectUnknownModels(true);
    expectFailure(await probe({ model: "llama3.2:1b" }).test("hi"), "model_not_found", `Ollama at ${ollama.url} does not have the canary model (HTTP 404)`);
    const live = probe();
    expect((await live.test("hi")).success).toBe(true);
    ollama.setModels([]);
    expectFailure(await live.test("hi"), "model_not_found", `Ollama at ${ollama.url} does not have the canary model (HTTP 404)`);
  });

  it("an HTTP error status is http_error and never echoes the body", async () => {
    ollama.setReply({ fault: "status", status: 500, body: "internal secret-token-123" });
    const result = await probe().test("hi");
    expectFailure(result, "http_error", "Ollama returned HTTP status 500");
    expect(JSON.stringify(result)).not.toContain("secret-token-123");
  });

  it("a body that is not JSON is invalid_response without the body", async () => {
    ollama.setReply({ fault: "garbage" });
    expectFailure(await probe().test("hi"), "invalid_response", "Ollama protocol error: invalid JSON response");
  });

  it("JSON that is not an object is invalid_response", async () => {
    ollama.setReply({ rawBody: [] });
    expectFailure(await probe().test("hi"), "invalid_response", NOT_A_STRING);
  });

  it.each([
    ["{}", {}],
    ["{message:{}}", { message: {} }],
    ["null content", { message: { content: null }, done: true, done_reason: "stop" }],
    ["numeric content", { message: { content: 7 }, done: true, done_reason: "stop" }],
    ["blank content", { message: { content: "   " }, done: true, done_reason: "stop" }],
  ])("%s is empty_response", async (_name, body) => {
    ollama.setReply({ rawBody: body });
    expectFailure(await probe().test("hi"), "empty_response", NOT_A_STRING);
  });

  it("the empty fault is empty_response", async () => {
    ollama.setReply({ fault: "empty" });
    expectFailure(await probe().test("hi"), "empty_response", NOT_A_STRING);
  });

  it("done_reason length is output_limit with done_reason and eval_count", async () => {
    ollama.setReply({ fault: "length", content: "cut" });
    const result = await probe().test("hi");
    expectFailure(result, "output_limit", INCOMPLETE);
    expect(result.metadata).toEqual({ done_reason: "length", eval_count: 1 });
  });

  it.each([
    ["done false", { content: "x", done: false, done_reason: "stop" }, "stop"],
    ["done_reason null", { content: "x", done: true, done_reason: null }, null],
    ["done_reason unload", { content: "x", done: true, done_reason: "unload" }, "unload"],
    ["unknown done_reason", { content: "x", done: true, done_reason: "weird<secret>" }, null],
  ])("%s is incomplete_response", async (_name, reply, reason) => {
    ollama.setReply(reply);
    const result = await probe().test("hi");
    expectFailure(result, "incomplete_response", INCOMPLETE);
    expect(result.metadata["done_reason"]).toBe(reason);
  });

  it("a hanging backend is a timeout within the deadline", async () => {
    ollama.setReply({ fault: "hang" });
    // The backend never answers: a result at all, naming the 0.2 s deadline, shows the deadline ended the call.
    const result = await probe({ timeoutSeconds: 0.2 }).test("hi");
    expectFailure(result, "timeout", "Canary timed out after 0.2s");
  });

  it("the deadline also covers a slow body after the headers", async () => {
    ollama.setReply({ content: "late", latencyMs: 1500 });
    const result = await probe({ timeoutSeconds: 0.2 }).test("hi");
    expect(result.failureCode).toBe("timeout");
  });

  it("a fetch that ignores the abort signal still cannot outlive the deadline", async () => {
    const fakeFetch: typeof fetch = () => new Promise(() => undefined);
    const result = await new OllamaCanaryProbe({ timeoutSeconds: 1, fetch: fakeFetch }).test("hi");
    expectFailure(result, "timeout", "Canary timed out after 1.0s");
  });

  it("a refused connection is unavailable and names only the origin", async () => {
    const port = await freePort();
    const result = await new OllamaCanaryProbe({
      ollamaUrl: `http://user:secret@127.0.0.1:${port}/path?token=secret`,
    }).test("hi");
    expectFailure(result, "unavailable", `Cannot connect to Ollama at http://127.0.0.1:${port}`);
  });

  it("a dropped connection is unavailable", async () => {
    ollama.setReply({ fault: "drop" });
    expectFailure(await probe().test("hi"), "unavailable", `Cannot connect to Ollama at ${ollama.url}`);
  });

  it("any other exception is probe_exception with only the class name", async () => {
    class RuntimeError extends Error {}
    const throwing: typeof fetch = async () => {
      throw new RuntimeError("Something went wrong with secret-token");
    };
    const result = await probe({ fetch: throwing }).test("hi");
    expectFailure(result, "probe_exception", "Canary probe failed (RuntimeError)");
  });

  it("a body over the cap is invalid_response", async () => {
    ollama.setReply({ content: "x".repeat(5 * 1024 * 1024) });
    const result = await probe().test("hi");
    expect(result.failureCode).toBe("invalid_response");
    expect(result.response).toBe("");
  });
});

describe("possible truncation by the backend", () => {
  it("prompt_eval_count >= num_ctx - num_predict is context_truncated, never a pass", async () => {
    ollama.setReply({ content: "fine", prompt_eval_count: 1000 - 256 });
    const result = await probe({ numCtx: 1000 }).test("hi");
    expectFailure(result, "context_truncated", "Canary prompt may have been truncated by the backend (prompt_eval_count 744 >= num_ctx - num_predict)");
    expect(result.metadata["prompt_eval_count"]).toBe(744);
  });

  it("a prompt one token under the limit passes", async () => {
    ollama.setReply({ content: "fine", prompt_eval_count: 743 });
    expect((await probe({ numCtx: 1000 }).test("hi")).success).toBe(true);
  });

  it("without num_ctx the count is only recorded", async () => {
    ollama.setReply({ content: "fine", prompt_eval_count: 999_999 });
    const result = await probe().test("hi");
    expect(result.success).toBe(true);
    expect(result.metadata["prompt_eval_count"]).toBe(999_999);
  });
});

describe("options", () => {
  it.each([0, -1, 1.5, true, "8192", Number.NaN])("numCtx %s is refused", (value) => {
    expect(() => new OllamaCanaryProbe({ numCtx: value as unknown as number })).toThrow(new UsageError("numCtx must be a positive integer or null"));
  });

  it("numCtx null or unset means none, and a positive integer is exposed", () => {
    expect(new OllamaCanaryProbe({ numCtx: null }).numCtx).toBeNull();
    expect(new OllamaCanaryProbe().numCtx).toBeNull();
    expect(new OllamaCanaryProbe({ numCtx: 15044 }).numCtx).toBe(15044);
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])("timeout %s is refused", (timeoutSeconds) => {
    expect(() => new OllamaCanaryProbe({ timeoutSeconds })).toThrow(UsageError);
  });

  it("an empty model or a non-http URL is refused", () => {
    expect(() => new OllamaCanaryProbe({ model: "" })).toThrow(UsageError);
    expect(() => new OllamaCanaryProbe({ ollamaUrl: "not-a-url" })).toThrow(UsageError);
  });

  it("defaults are the documented ones and the probe never serialises its URL secrets", () => {
    const p = new OllamaCanaryProbe({ ollamaUrl: "http://user:secret@127.0.0.1:11434/?token=secret" });
    expect([p.model, p.timeoutSeconds, p.maxTokens, p.temperature, p.seed]).toEqual(["qwen2.5:1.5b", 10, 256, 0, 42]);
    expect(new OllamaCanaryProbe().endpointOrigin).toBe("http://127.0.0.1:11434");
    expect(p.endpointOrigin).toBe("http://127.0.0.1:11434");
    expect(JSON.stringify(p)).not.toContain("secret");
    expect(String(p)).not.toContain("secret");
  });
});

describe("isAvailable", () => {
  it("is true when the tag is listed exactly, or an untagged name's :latest is, as Ollama finds a model", async () => {
    expect(await probe().isAvailable()).toBe(true);
    expect(ollama.requests.at(-1)?.path).toBe("/api/tags");
    // Ollama reads `qwen2.5` as `qwen2.5:latest`: another tag of it does not serve that name.
    expect(await probe({ model: "qwen2.5" }).isAvailable()).toBe(false);
    ollama.setModels([{ name: "qwen2.5:latest" }, { name: "llama3.2:3b" }]);
    expect(await probe({ model: "qwen2.5" }).isAvailable()).toBe(true);
    expect(await probe({ model: "qwen2.5:latest" }).isAvailable()).toBe(true);
    expect(await probe({ model: "llama3.2" }).isAvailable()).toBe(false);
    expect(await probe({ model: "llama3" }).isAvailable()).toBe(false);
  });

  it("is false for a missing model, an error status, garbage or a refused connection", async () => {
    expect(await probe({ model: "qwen2" }).isAvailable()).toBe(false);
    ollama.setRouteFault("/api/tags", { fault: "status", status: 500 });
    expect(await probe().isAvailable()).toBe(false);
    ollama.setRouteFault("/api/tags", { fault: "garbage" });
    expect(await probe().isAvailable()).toBe(false);
    ollama.setRouteFault("/api/tags", { rawBody: { models: "nope" } });
    expect(await probe().isAvailable()).toBe(false);
    const port = await freePort();
    expect(await new OllamaCanaryProbe({ ollamaUrl: `http://127.0.0.1:${port}` }).isAvailable()).toBe(false);
  });
});

describe("modelDigest", () => {
  it("reads the digest of the exact tag from /api/tags", async () => {
    ollama.setModels([
      { name: "qwen2.5:7b", digest: "b".repeat(64) },
      { name: "qwen2.5:1.5b", digest: "a".repeat(64) },
    ]);
    expect(await probe().modelDigest()).toBe("a".repeat(64));
    expect(ollama.requests.map((r) => r.path)).toEqual(["/api/tags"]);
  });

  it("resolves an untagged name as :latest, never by prefix", async () => {
    ollama.setModels([
      { name: "tiny:7b", digest: "b".repeat(64) },
      { name: "tiny:latest", digest: "c".repeat(64) },
    ]);
    expect(await probe({ model: "tiny" }).modelDigest()).toBe("c".repeat(64));
    ollama.setModels([{ name: "tiny:7b", digest: "b".repeat(64) }]);
    expect(await probe({ model: "tiny" }).modelDigest()).toBeNull();
  });

  it("is null when the digest is missing, or the inventory fails", async () => {
    ollama.setModels([{ name: "qwen2.5:1.5b", digest: null }]);
    expect(await probe().modelDigest()).toBeNull();
    ollama.setRouteFault("/api/tags", { fault: "status", status: 500 });
    expect(await probe().modelDigest()).toBeNull();
  });
});

describe("contextLength", () => {
  it("reads <architecture>.context_length with one /api/show and remembers it", async () => {
    const p = probe();
    expect(await p.contextLength()).toBe(32768);
    expect(p.lastContextLength).toBe(32768);
    expect(ollama.requests.map((r) => [r.method, r.path, r.body])).toEqual([["POST", "/api/show", { model: "qwen2.5:1.5b" }]]);
  });

  it("falls back to the single key ending in .context_length", async () => {
    ollama.setModelInfo({ "general.architecture": "other", "llama.context_length": 8192 });
    expect(await probe().contextLength()).toBe(8192);
  });

  it.each([
    ["two non-matching keys", { "general.architecture": "x", "a.context_length": 1, "b.context_length": 2 }],
    ["no key", { "general.architecture": "qwen2" }],
    ["a boolean", { "general.architecture": "qwen2", "qwen2.context_length": true }],
    ["zero", { "general.architecture": "qwen2", "qwen2.context_length": 0 }],
    ["a negative number", { "general.architecture": "qwen2", "qwen2.context_length": -1 }],
    ["a string", { "general.architecture": "qwen2", "qwen2.context_length": "32768" }],
    ["a fraction", { "general.architecture": "qwen2", "qwen2.context_length": 32768.5 }],
  ])("%s gives null and resets lastContextLength", async (_name, info) => {
    const p = probe();
    expect(await p.contextLength()).toBe(32768);
    ollama.setModelInfo(info);
    expect(await p.contextLength()).toBeNull();
    expect(p.lastContextLength).toBeNull();
  });

  it("a float literal such as 32768.0 is refused", async () => {
    ollama.setRouteFault("/api/show", {
      rawBody: JSON.parse('{"model_info":{"general.architecture":"qwen2","qwen2.context_length":1}}'),
    });
    expect(await probe().contextLength()).toBe(1);
    // JSON.stringify cannot write 32768.0, so the raw body is served through a stand-in function.
    const server = await startLoopbackServer(async (_request, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"model_info":{"general.architecture":"qwen2","qwen2.context_length":32768.0}}');
    });
    try {
      expect(await new OllamaCanaryProbe({ ollamaUrl: server.url }).contextLength()).toBeNull();
    } finally {
      await server.close();
    }
  });

  it("an unknown model (404), a server error or no model_info gives null", async () => {
    expect(await probe({ model: "missing" }).contextLength()).toBeNull();
    ollama.setRouteFault("/api/show", { fault: "status", status: 500 });
    expect(await probe().contextLength()).toBeNull();
    ollama.setRouteFault("/api/show", { rawBody: { details: {} } });
    expect(await probe().contextLength()).toBeNull();
  });

  it("an unreachable backend gives null after exactly one request attempt", async () => {
    const port = await freePort();
    let calls = 0;
    const counting: typeof fetch = (input, init) => {
      calls++;
      return fetch(input, init);
    };
    const p = new OllamaCanaryProbe({ ollamaUrl: `http://127.0.0.1:${port}`, fetch: counting });
    expect(await p.contextLength()).toBeNull();
    expect(calls).toBe(1);
    expect(p.lastContextLength).toBeNull();
  });
});

describe("requiredCanaryContext", () => {
  it("is 15044 for the default segment and budget with a 181-code-point prompt (the documented figure)", () => {
    expect(requiredCanaryContext({ segmentChars: 3500, systemPrompt: "p".repeat(181), maxTokens: 256 })).toBe(15044);
  });

  it("follows the length of the actual default prompt", () => {
    const promptChars = [...DEFAULT_CANARY_SYSTEM_PROMPT].length;
    expect(requiredCanaryContext({ segmentChars: 3500, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 })).toBe(14000 + 4 * promptChars + 256 + 64);
  });

  it("counts code points and never subtracts a negative token budget", () => {
    expect(requiredCanaryContext({ segmentChars: 1, systemPrompt: "😀😀", maxTokens: -5 })).toBe(4 + 8 + 0 + 64);
  });
});
