// What an OpenAI-compatible endpoint says about itself (probeOpenAIIdentity, tokenizeCount) and
// how the probe uses it per check, against the vLLM-like loopback stand-in.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { probeOpenAIIdentity, tokenizeBaseUrl, tokenizeCount } from "../../src/canary/openai-identity.js";
import { OpenAICanaryProbe } from "../../src/canary/openai-probe.js";
import { preflightCanary } from "../../src/pipeline/canary-preflight.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { refusedUrl } from "../support/free-port.js";
import { startVllmStandIn, VLLM_MODEL, type OpenAIStandIn } from "../support/openai-stand-in.js";

let vllm: OpenAIStandIn;
beforeEach(async () => {
  vllm = await startVllmStandIn({ reply: "A short summary.", apiKey: "sk-identity-secret" });
});
afterEach(async () => {
  await vllm.close();
});

const OPTIONS = { fetch: globalThis.fetch, model: VLLM_MODEL, apiKey: "sk-identity-secret", timeoutMs: 5000 };

describe("probeOpenAIIdentity", () => {
  it("reads the served model, root, max_model_len and /tokenize, and with a warm-up the fingerprint", async () => {
    const plain = await probeOpenAIIdentity({ ...OPTIONS, baseUrl: vllm.baseUrl });
    expect(plain).toEqual({
      ok: true,
      identity: {
        model: VLLM_MODEL,
        root: "Qwen/Qwen2.5-1.5B-Instruct",
        maxModelLen: 32768,
        systemFingerprint: null,
        tokenize: true,
        warmUpPromptTokens: null,
      },
    });
    // The fingerprint and the prompt tokens come from the warm-up completion, which the probe makes.
    const warmed = await new OpenAICanaryProbe({ baseUrl: vllm.baseUrl, model: VLLM_MODEL, apiKey: "sk-identity-secret" }).calibration();
    expect(warmed.ok && warmed.server).toMatchObject({ systemFingerprint: "fp_stand_in_1", warmUpPromptTokens: 239 });
    // The key went as a Bearer header on every call, /tokenize included.
    expect(vllm.requests.every((request) => request.headers.authorization === "Bearer sk-identity-secret")).toBe(true);
    expect(vllm.tokenizeRequests()[0]?.body).toMatchObject({
      model: VLLM_MODEL,
      messages: [
        { role: "system", content: "" },
        { role: "user", content: "ping" },
      ],
    });
  });

  it("a server without max_model_len or /tokenize says so; one that does not list the model is not identified", async () => {
    vllm.setMaxModelLen(null);
    vllm.setTokenize(false);
    const bare = await probeOpenAIIdentity({ ...OPTIONS, baseUrl: vllm.baseUrl });
    expect(bare.ok && bare.identity).toMatchObject({ maxModelLen: null, root: null, tokenize: false });
    expect(await tokenizeCount({ ...OPTIONS, baseUrl: vllm.baseUrl }, { systemPrompt: "s", userContent: "u" })).toBe("absent");
    const other = await probeOpenAIIdentity({ ...OPTIONS, baseUrl: vllm.baseUrl, model: "another/model" });
    expect(other).toMatchObject({
      ok: false,
      kind: "model_not_served",
      message: `the server at ${vllm.url} does not list the model "another/model" in GET /v1/models`,
    });
  });

  it("an unreachable endpoint or a refused key is a value naming only the origin, never the key or a path secret", async () => {
    const url = await refusedUrl();
    const down = await probeOpenAIIdentity({ ...OPTIONS, baseUrl: `${url}/v1` });
    expect(down).toMatchObject({ ok: false, kind: "unreachable" });
    const refused = await probeOpenAIIdentity({ ...OPTIONS, baseUrl: `${vllm.url}/secret-path/v1`, apiKey: "sk-wrong-key" });
    expect(refused).toMatchObject({ ok: false, kind: "http_error" });
    const text = JSON.stringify([down, refused]);
    expect(text).not.toContain("sk-");
    expect(text).not.toContain("secret-path");
  });

  it("/tokenize lives beside /v1, at the server root", () => {
    expect(tokenizeBaseUrl("http://127.0.0.1:8000/v1")).toBe("http://127.0.0.1:8000/");
    expect(tokenizeBaseUrl("http://127.0.0.1:8000/v1/")).toBe("http://127.0.0.1:8000/");
    expect(tokenizeBaseUrl("https://gw.example/vllm/v1")).toBe("https://gw.example/vllm");
  });
});

describe("the probe's per-check count", () => {
  const probe = () => new OpenAICanaryProbe({ baseUrl: vllm.baseUrl, apiKey: "sk-identity-secret", model: VLLM_MODEL, timeoutSeconds: 5 });

  it("with /tokenize each prompt is counted exactly and a reply is measured against that count", async () => {
    const result = await probe().test("What is the capital of France?");
    expect(result.success).toBe(true);
    expect(result.metadata).toMatchObject({ context_check: "tokenize" });
    expect(result.metadata["prompt_count"]).toBe(result.metadata["prompt_tokens"]);
  });

  it("a prompt /tokenize shows cannot fit max_model_len is context_too_long and is never sent", async () => {
    vllm.setMaxModelLen(600);
    const p = probe();
    const result = await p.test("Please summarise the following paragraph. ".repeat(80));
    expect(result).toMatchObject({ success: false, failureCode: "context_too_long", response: "" });
    expect(result.error).toContain(`more than the max_model_len 600 of the server at ${vllm.url}`);
    expect(vllm.completionRequests()).toHaveLength(0);
    expect(p.knownServer).toMatchObject({ maxModelLen: 600, tokenize: true, systemFingerprint: "fp_stand_in_1" });
  });

  it("without /tokenize a short prompt passes on the one-token-per-byte rule", async () => {
    vllm.setTokenize(false);
    const result = await probe().test("What is the capital of France?");
    expect(result.success).toBe(true);
    expect(result.metadata["context_check"]).toBe("one_token_per_byte");
    // Only the identity probe asked /tokenize (404); the check did not.
    expect(vllm.tokenizeRequests()).toHaveLength(1);
  });

  it("the pipeline preflight proves the window before any check, and does nothing for Ollama", async () => {
    const pipeline = new SecurityPipeline({
      provider: "openai",
      baseUrl: vllm.baseUrl,
      apiKey: "sk-identity-secret",
      canaryModel: VLLM_MODEL,
      canaryTimeout: 5,
    });
    await expect(preflightCanary(pipeline)).resolves.toEqual({
      served_model: VLLM_MODEL,
      root: "Qwen/Qwen2.5-1.5B-Instruct",
      max_model_len: 32768,
      system_fingerprint: "fp_stand_in_1",
      prompt_count: "tokenize",
    });
    expect(vllm.completionRequests()).toHaveLength(0);
    await expect(preflightCanary(new SecurityPipeline({ ollamaUrl: await refusedUrl() }))).resolves.toBeNull();
    vllm.setMaxModelLen(null);
    const fresh = new SecurityPipeline({ provider: "openai", baseUrl: vllm.baseUrl, apiKey: "sk-identity-secret", canaryModel: VLLM_MODEL, canaryTimeout: 5 });
    await expect(preflightCanary(fresh)).rejects.toMatchObject({ name: "CanaryContextError", code: "backend" });
  });
});

describe("library entries run the gate too", () => {
  it("screenBatch refuses a server without max_model_len before any check", async () => {
    const { screenBatch } = await import("../../src/screen/screen-batch.js");
    vllm.setMaxModelLen(null);
    const pipeline = new SecurityPipeline({
      provider: "openai",
      baseUrl: vllm.baseUrl,
      apiKey: "sk-identity-secret",
      canaryModel: VLLM_MODEL,
      canaryTimeout: 5,
    });
    await expect(screenBatch(["hello", "world"], pipeline)).rejects.toThrow(/reports no max_model_len/);
    expect(vllm.completionRequests()).toHaveLength(0);
  });
});

describe("the 400 over-length answer", () => {
  it("both vLLM error shapes and both phrasings are context_too_long; another 400 stays http_error", async () => {
    const { interpretOpenAIChat } = await import("../../src/canary/chat-exchange.js");
    const texts = { origin: "http://127.0.0.1:8000", timeoutSeconds: 5 };
    const answer = (body: unknown) => interpretOpenAIChat({ kind: "response", status: 400, body: JSON.stringify(body) }, texts);
    const bodies = [
      { error: { message: "This model's maximum context length is 2048 tokens. However, you requested 3000 tokens.", type: "BadRequestError", code: 400 } },
      { object: "error", message: "This model's maximum context length is 2048 tokens.", type: "BadRequestError", code: 400 },
      { error: { message: "The decoder prompt (length 3000) is longer than the maximum model length of 2048.", code: 400 } },
    ];
    for (const body of bodies) {
      const outcome = answer(body);
      expect(outcome).toMatchObject({ ok: false, failureCode: "context_too_long" });
      // The body is never echoed: only the origin and the status.
      expect(JSON.stringify(outcome)).not.toContain("2048");
    }
    expect(answer({ error: { message: "invalid temperature" } })).toMatchObject({ ok: false, failureCode: "http_error" });
    expect(interpretOpenAIChat({ kind: "response", status: 500, body: JSON.stringify(bodies[0]) }, texts)).toMatchObject({ failureCode: "http_error" });
  });
});
