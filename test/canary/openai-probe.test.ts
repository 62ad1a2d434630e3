// The OpenAI-compatible probe against a real loopback stand-in: request shape,
// every failure text, the length cut-off as degraded, and an API key that never leaks.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, UsageError } from "../../src/core/errors.js";
import { OpenAICanaryProbe, type OpenAICanaryProbeOptions } from "../../src/canary/openai-probe.js";
import { apiKeyFromEnv } from "../../src/canary/options.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";
import type { CanaryResult } from "../../src/canary/types.js";
import { startOpenAIStandIn, type OpenAIStandIn } from "../support/openai-stand-in.js";
import { freePort } from "../support/free-port.js";
import { CHAT_TEMPLATE_ALLOWANCE } from "../../src/canary/context.js";
import { provenByByteBound, UNVERIFIED_SAFE_CONTEXT } from "../../src/canary/run-context.js";

const KEY = "sk-test-SECRET-0123456789";
let api: OpenAIStandIn;
beforeEach(async () => {
  api = await startOpenAIStandIn({ apiKey: KEY });
});
afterEach(async () => {
  await api.close();
});

function probe(options: OpenAICanaryProbeOptions = {}): OpenAICanaryProbe {
  return new OpenAICanaryProbe({ baseUrl: api.baseUrl, apiKey: KEY, ...options });
}

function expectFailure(result: CanaryResult, code: string, error: string): void {
  expect(result.success).toBe(false);
  expect(result.response).toBe("");
  expect(result.failureCode).toBe(code);
  expect(result.error).toBe(error);
  expect(JSON.stringify(result)).not.toContain(KEY);
}

const NOT_A_STRING = "API protocol error: response content must be a non-empty string";
const INCOMPLETE = "API protocol error: incomplete chat response";

describe("a successful completion", () => {
  it("returns the content verbatim with usage as metadata", async () => {
    api.setReply({ content: " Paris. ", usage: { prompt_tokens: 60, completion_tokens: 2, total_tokens: 62 } });
    const result = await probe().test("Capital of France?");
    expect(result).toMatchObject({ success: true, response: " Paris. ", failureCode: null, error: null });
    expect(result.metadata).toEqual({ prompt_tokens: 60, completion_tokens: 2, total_tokens: 62, context_check: "one_token_per_byte" });
  });

  it("a server that keeps half of an over-long prompt (Ollama /v1) is context_truncated, never a pass", async () => {
    api.setContextCap(2048, "keep_half");
    const result = await probe().test("数据安全".repeat(850));
    expect(result.success).toBe(false);
    expect(result.failureCode).toBe("context_truncated");
    expect(result.metadata["prompt_tokens"]).toBe(1026);
    expect(api.warmUpRequests()).toHaveLength(1);
    expect((api.warmUpRequests()[0]?.body as { max_tokens: number } | undefined)?.max_tokens).toBe(1);
  });

  it("a server that rejects an over-long prompt with 400 is context_too_long; a reply without usage is context_unverified, never a pass", async () => {
    api.setContextCap(2048, "reject");
    const rejected = await probe().test("数据安全".repeat(850));
    // Its own code since issue 15: a refusal of the prompt's length, not a transport error.
    expect(rejected.failureCode).toBe("context_too_long");
    api.setContextCap(null);
    api.setReply({ content: "fine", usage: null });
    const unmeasured = await probe().test("hello");
    expect(unmeasured).toMatchObject({ success: false, failureCode: "context_unverified", response: "" });
    expect(unmeasured.error).toContain(`the server at ${api.url} reported no usage.prompt_tokens`);
  });

  it("sends the documented body and a Bearer header", async () => {
    await probe().test("hello");
    const request = api.completionRequests()[0];
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request?.headers["content-type"]).toBe("application/json");
    expect(request?.body).toEqual({
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: DEFAULT_CANARY_SYSTEM_PROMPT },
        { role: "user", content: "hello" },
      ],
      max_tokens: 256,
      temperature: 0,
      stream: false,
      seed: 42,
    });
  });

  it("omits the seed when null and the Authorization header when no key is set", async () => {
    const open = await startOpenAIStandIn();
    try {
      await new OpenAICanaryProbe({ baseUrl: `${open.baseUrl}/`, seed: null }).test("hi");
      const request = open.completionRequests()[0];
      expect(request?.headers.authorization).toBeUndefined();
      expect(request?.body).not.toHaveProperty("seed");
    } finally {
      await open.close();
    }
  });

  it("accepts a completion without finish_reason", async () => {
    api.setReply({ content: "ok", finish_reason: null });
    expect((await probe().test("hi")).success).toBe(true);
  });

  it("a completion without finish_reason that used the whole reply budget is output_limit, never success", async () => {
    api.setReply({
      content: "Sure, here is the first part; I will now",
      finish_reason: null,
      usage: { prompt_tokens: 150, completion_tokens: 256, total_tokens: 406 },
    });
    const cut = await probe({ maxTokens: 256 }).test("hi");
    expectFailure(cut, "output_limit", INCOMPLETE);
    expect(cut.metadata).toMatchObject({ finish_reason: null, completion_tokens: 256 });
    // One token under the budget is a reply that ended by itself.
    api.setReply({ content: "ok", finish_reason: null, usage: { prompt_tokens: 150, completion_tokens: 255, total_tokens: 405 } });
    expect((await probe({ maxTokens: 256 }).test("hi")).success).toBe(true);
    // A "stop" is the server's own word that the reply ended, whatever it counted.
    api.setReply({ content: "ok", finish_reason: "stop", usage: { prompt_tokens: 150, completion_tokens: 256, total_tokens: 406 } });
    expect((await probe({ maxTokens: 256 }).test("hi")).success).toBe(true);
  });
});

describe("without an exact count, a reply passes only when its prompt fits at one token per byte", () => {
  const SYSTEM = "You are a canary.";
  /** Bytes of text that make the system prompt, text, template allowance and reply budget exactly `total`. */
  const textBytesFor = (total: number, maxTokens: number): number => total - Buffer.byteLength(SYSTEM) - CHAT_TEMPLATE_ALLOWANCE - maxTokens;

  it("counts system prompt, text (in UTF-8 bytes), template allowance and reply budget against the smaller of the reported window and 2048", () => {
    const fits = "a".repeat(textBytesFor(UNVERIFIED_SAFE_CONTEXT, 256));
    expect(provenByByteBound(SYSTEM, fits, 256, 32768)).toEqual({ fits: true, needed: UNVERIFIED_SAFE_CONTEXT, window: UNVERIFIED_SAFE_CONTEXT });
    expect(provenByByteBound(SYSTEM, `${fits}a`, 256, 32768)).toMatchObject({ fits: false, needed: UNVERIFIED_SAFE_CONTEXT + 1 });
    // A four-byte code point costs four, not one.
    expect(provenByByteBound(SYSTEM, `${fits.slice(4)}😀`, 256, null)).toMatchObject({ fits: true, needed: UNVERIFIED_SAFE_CONTEXT });
    expect(provenByByteBound(SYSTEM, `${fits.slice(4)}😀a`, 256, null).fits).toBe(false);
    // A reported window below 2048 is the one held to; the reply budget is part of the need.
    expect(provenByByteBound(SYSTEM, "a".repeat(textBytesFor(1000, 256)), 256, 1000)).toEqual({ fits: true, needed: 1000, window: 1000 });
    expect(provenByByteBound(SYSTEM, "a".repeat(textBytesFor(1000, 256)), 257, 1000).fits).toBe(false);
  });

  it("a server that keeps the tail of a prompt (a cut the calibrated lower bound cannot see) and reports usage for what it kept is context_unverified", async () => {
    const text = "The quarterly report covers shipping times, return windows and customer satisfaction. ".repeat(40);
    // About 15 % of the prompt is cut: well inside what the 1.6x lower bound lets through.
    api.setContextCap(800, "keep_tail");
    const result = await probe().test(text);
    expect(result).toMatchObject({ success: false, failureCode: "context_unverified", response: "" });
    expect(result.metadata["prompt_tokens"]).toBe(800);
    expect(result.error).toContain(`the server at ${api.url} offers no POST /tokenize, and this prompt with its reply budget may need up to`);
    // The same text with nothing cut is no better proven: the rule does not depend on the cut.
    api.setContextCap(null);
    expect((await probe().test(text)).failureCode).toBe("context_unverified");
  });
});

describe("the OpenAI-compatible failures", () => {
  it("a 404 'model does not exist' on a chat is model_not_found, without the body", async () => {
    api.setReply({
      fault: "status",
      status: 404,
      body: JSON.stringify({ object: "error", message: "The model `gone` does not exist. sk-leak", type: "NotFoundError", code: 404 }),
    });
    const result = await probe().test("hi");
    expectFailure(result, "model_not_found", `the server at ${api.url} does not serve the canary model (HTTP 404)`);
    expect(JSON.stringify(result)).not.toContain("sk-leak");
  });

  it("an error status is http_error without the body", async () => {
    api.setReply({ fault: "status", status: 429, body: "rate limited for key sk-leak" });
    const result = await probe().test("hi");
    expectFailure(result, "http_error", "API returned HTTP status 429");
    expect(JSON.stringify(result)).not.toContain("sk-leak");
  });

  it("a wrong key is http_error 401 and the key is not echoed", async () => {
    expectFailure(await probe({ apiKey: "sk-wrong-key" }).test("hi"), "http_error", "API returned HTTP status 401");
  });

  it("garbage is invalid_response", async () => {
    api.setReply({ fault: "garbage" });
    expectFailure(await probe().test("hi"), "invalid_response", "API protocol error: invalid JSON response");
  });

  it.each([
    ["[]", "invalid_response", []],
    ["{}", "empty_response", {}],
    ["choices null", "empty_response", { choices: null }],
    ["empty choices", "empty_response", { choices: [] }],
    ["missing message", "empty_response", { choices: [{ finish_reason: "stop" }] }],
    ["null content", "empty_response", { choices: [{ message: { content: null } }] }],
    ["numeric content", "empty_response", { choices: [{ message: { content: 3 } }] }],
    ["blank content", "empty_response", { choices: [{ message: { content: " \n" } }] }],
  ])("%s is %s", async (_name, code, body) => {
    api.setReply({ rawBody: body });
    expectFailure(await probe().test("hi"), code, NOT_A_STRING);
  });

  it("missing choices and empty content faults are empty_response", async () => {
    api.enqueue({ fault: "no_choices" }, { fault: "empty" });
    expectFailure(await probe().test("hi"), "empty_response", NOT_A_STRING);
    expectFailure(await probe().test("hi"), "empty_response", NOT_A_STRING);
  });

  it("finish_reason length is output_limit, never success", async () => {
    api.setReply({ fault: "length" });
    const result = await probe().test("hi");
    expectFailure(result, "output_limit", INCOMPLETE);
    expect(result.metadata["finish_reason"]).toBe("length");
  });

  it("any other finish_reason is incomplete_response", async () => {
    api.setReply({ content: "partial", finish_reason: "content_filter" });
    expectFailure(await probe().test("hi"), "incomplete_response", INCOMPLETE);
  });

  it("a hang is a timeout", async () => {
    api.setReply({ fault: "hang" });
    expectFailure(await probe({ timeoutSeconds: 0.2 }).test("hi"), "timeout", "Canary timed out after 0.2s");
  });

  it("a refused connection is unavailable, naming the origin only", async () => {
    const port = await freePort();
    const result = await new OpenAICanaryProbe({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY }).test("hi");
    expectFailure(result, "unavailable", `Cannot connect to API at http://127.0.0.1:${port}`);
  });

  it("another exception is probe_exception with the class name only", async () => {
    const throwing: typeof fetch = async () => {
      throw new RangeError(`bad ${KEY}`);
    };
    expectFailure(await probe({ fetch: throwing }).test("hi"), "probe_exception", "Canary probe failed (RangeError)");
  });
});

describe("the API key", () => {
  it("never appears in JSON, String() or inspection of the probe", async () => {
    const p = probe();
    const { inspect } = await import("node:util");
    expect(JSON.stringify(p)).not.toContain(KEY);
    expect(String(p)).not.toContain(KEY);
    expect(inspect(p, { depth: 5 })).not.toContain(KEY);
  });

  it("is read from a named environment variable", () => {
    expect(apiKeyFromEnv("MY_KEY", { MY_KEY: KEY })).toBe(KEY);
  });

  it("an unset or empty variable is a ConfigError naming the variable only", () => {
    for (const env of [{}, { MY_KEY: "" }, { MY_KEY: "   " }]) {
      let caught: unknown;
      try {
        apiKeyFromEnv("MY_KEY", env);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).message).toContain("MY_KEY");
    }
    expect(() => apiKeyFromEnv("not a name", {})).toThrow(UsageError);
  });
});

describe("isAvailable", () => {
  it("is true on 200 from /models with the key", async () => {
    expect(await probe().isAvailable()).toBe(true);
    expect(api.requests.at(-1)?.path).toBe("/v1/models");
    expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it("is false on an error status or a refused connection", async () => {
    expect(await probe({ apiKey: "wrong" }).isAvailable()).toBe(false);
    const port = await freePort();
    expect(await new OpenAICanaryProbe({ baseUrl: `http://127.0.0.1:${port}/v1` }).isAvailable()).toBe(false);
  });
});

describe("options", () => {
  it("has the documented defaults", () => {
    const p = new OpenAICanaryProbe();
    expect([p.model, p.timeoutSeconds, p.maxTokens, p.temperature, p.seed]).toEqual(["gpt-4o-mini", 10, 256, 0, 42]);
    expect(p.endpointOrigin).toBe("https://api.openai.com");
  });

  it("refuses an empty model and a bad timeout", () => {
    expect(() => new OpenAICanaryProbe({ model: "" })).toThrow(UsageError);
    expect(() => new OpenAICanaryProbe({ timeoutSeconds: 0 })).toThrow(UsageError);
  });
});
