// The stand-ins are test infrastructure that several stages rely on, so their contract is pinned
// here: routes, scripted replies in order, faults, and a close() that never leaves a socket open.
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "./free-port.js";
import { startOllamaStandIn, type OllamaStandIn } from "./ollama-stand-in.js";
import { startOpenAIStandIn, startVllmStandIn, VLLM_MODEL, type OpenAIStandIn } from "./openai-stand-in.js";

const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

async function ollama(): Promise<OllamaStandIn> {
  const s = await startOllamaStandIn();
  open.push(s);
  return s;
}

async function openai(apiKey?: string): Promise<OpenAIStandIn> {
  const s = await startOpenAIStandIn(apiKey === undefined ? {} : { apiKey });
  open.push(s);
  return s;
}

const chat = (url: string, body: unknown = { model: "qwen2.5:1.5b", messages: [] }) => fetch(`${url}/api/chat`, { method: "POST", body: JSON.stringify(body) });

describe("Ollama stand-in", () => {
  it("listens on 127.0.0.1 and records the parsed chat body", async () => {
    const s = await ollama();
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await chat(s.url, { model: "m", messages: [{ role: "user", content: "hi" }] });
    const json = (await res.json()) as { message: { content: string }; done: boolean; done_reason: string };
    expect(json.done).toBe(true);
    expect(json.done_reason).toBe("stop");
    expect(json.message.content).toBe("Hello! How can I help you today?");
    expect(s.chatRequests()).toHaveLength(1);
    expect(s.chatRequests()[0]?.body).toEqual({ model: "m", messages: [{ role: "user", content: "hi" }] });
  });

  it("serves queued replies first, in order, then the default or function", async () => {
    const s = await ollama();
    s.setReply((_req, i) => `call ${i}`);
    s.enqueue("first", { content: "second", prompt_eval_count: 7 });
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await (await chat(s.url)).json()) as Record<string, unknown>);
    expect(bodies.map((b) => (b["message"] as { content: string }).content)).toEqual(["first", "second", "call 2"]);
    expect(bodies[1]?.["prompt_eval_count"]).toBe(7);
  });

  it("scripts the length, status, garbage and raw faults", async () => {
    const s = await ollama();
    s.enqueue(
      { fault: "length" },
      { fault: "status", status: 503, body: "secret" },
      { fault: "garbage" },
      {
        rawBody: [1, 2],
      },
    );
    expect(((await (await chat(s.url)).json()) as { done_reason: string }).done_reason).toBe("length");
    const failed = await chat(s.url);
    expect(failed.status).toBe(503);
    expect(await failed.text()).toBe("secret");
    await expect((await chat(s.url)).json()).rejects.toThrow();
    expect(await (await chat(s.url)).json()).toEqual([1, 2]);
  });

  it("drops a connection on the drop fault", async () => {
    const s = await ollama();
    s.enqueue({ fault: "drop" });
    await expect(chat(s.url)).rejects.toThrow();
  });

  it("close() ends a hanging request instead of leaking it", async () => {
    const s = await startOllamaStandIn({ reply: { fault: "hang" } });
    const pending = chat(s.url);
    while (s.chatRequests().length === 0) await new Promise((r) => setTimeout(r, 5));
    await s.close();
    await expect(pending).rejects.toThrow();
  });

  it("lists models with digests and answers /api/show for known models only", async () => {
    const s = await ollama();
    s.setModels([
      { name: "tiny:1b", digest: "abc" },
      { name: "nodigest:1b", digest: null },
    ]);
    const tags = (await (await fetch(`${s.url}/api/tags`)).json()) as { models: Array<Record<string, unknown>> };
    expect(tags.models.map((m) => [m["name"], m["digest"]])).toEqual([
      ["tiny:1b", "abc"],
      ["nodigest:1b", undefined],
    ]);
    const show = await fetch(`${s.url}/api/show`, { method: "POST", body: JSON.stringify({ model: "tiny:1b" }) });
    expect(((await show.json()) as { model_info: unknown }).model_info).toEqual({
      "general.architecture": "qwen2",
      "qwen2.context_length": 32768,
    });
    // As Ollama: an untagged name is `:latest`, which this stand-in does not have; another name neither.
    for (const model of ["tiny", "other"]) {
      const unknown = await fetch(`${s.url}/api/show`, { method: "POST", body: JSON.stringify({ model }) });
      expect(unknown.status).toBe(404);
    }
  });

  it("can fail any route", async () => {
    const s = await ollama();
    s.setRouteFault("/api/tags", { fault: "status", status: 500 });
    expect((await fetch(`${s.url}/api/tags`)).status).toBe(500);
    s.setRouteFault("/api/tags", null);
    expect((await fetch(`${s.url}/api/tags`)).status).toBe(200);
    expect(((await (await fetch(`${s.url}/api/version`)).json()) as { version: string }).version).toBeTruthy();
  });

  it("applies latency and counts concurrent chats", async () => {
    const s = await startOllamaStandIn({ latencyMs: 60 });
    open.push(s);
    const started = Date.now();
    await Promise.all([chat(s.url), chat(s.url)]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect(s.maxConcurrentChats).toBe(2);
  });
});

describe("the Ollama stand-in caps the context like Ollama", () => {
  const long = { model: "qwen2.5:1.5b", options: { num_ctx: 16384 }, messages: [{ role: "user", content: "数".repeat(3400) }] };

  it("keep-half answers 200 with prompt_eval_count cap/2+2 and /api/ps reports the capped context", async () => {
    const s = await startOllamaStandIn({ contextCap: 2048 });
    open.push(s);
    const json = (await (await chat(s.url, long)).json()) as { prompt_eval_count: number; done_reason: string };
    expect(json.done_reason).toBe("stop");
    expect(json.prompt_eval_count).toBe(1026);
    const ps = (await (await fetch(`${s.url}/api/ps`)).json()) as { models: Array<Record<string, unknown>> };
    expect(ps.models).toHaveLength(1);
    expect(ps.models[0]).toMatchObject({ name: "qwen2.5:1.5b", model: "qwen2.5:1.5b", context_length: 2048, size_vram: 0 });
  });

  it("overflow reject answers 400; without a cap the requested num_ctx is loaded", async () => {
    const s = await startOllamaStandIn({ contextCap: 2048, overflow: "reject" });
    open.push(s);
    expect((await chat(s.url, long)).status).toBe(400);
    s.setContextCap(null);
    const ok = (await (await chat(s.url, long)).json()) as { prompt_eval_count: number };
    expect(ok.prompt_eval_count).toBe(Math.ceil((3400 * 3) / 4) + 8);
    const ps = (await (await fetch(`${s.url}/api/ps`)).json()) as { models: Array<Record<string, unknown>> };
    expect(ps.models[0]?.["context_length"]).toBe(16384);
  });

  it("/api/ps can be missing, lack context_length, or lie", async () => {
    const s = await ollama();
    expect(((await (await fetch(`${s.url}/api/ps`)).json()) as { models: unknown[] }).models).toEqual([]);
    await chat(s.url, long);
    s.setPs("missing");
    expect((await fetch(`${s.url}/api/ps`)).status).toBe(404);
    s.setPs("no_context_length");
    const bare = (await (await fetch(`${s.url}/api/ps`)).json()) as { models: Array<Record<string, unknown>> };
    expect(bare.models[0]).not.toHaveProperty("context_length");
    s.setPs({ contextLength: 99 });
    const lying = (await (await fetch(`${s.url}/api/ps`)).json()) as { models: Array<Record<string, unknown>> };
    expect(lying.models[0]?.["context_length"]).toBe(99);
  });
});

describe("OpenAI-compatible stand-in", () => {
  it("a context cap answers 400 (reject) or keeps half and reports cap/2+2 prompt tokens", async () => {
    const s = await startOpenAIStandIn({ contextCap: 2048 });
    open.push(s);
    const body = JSON.stringify({ model: "m", messages: [{ role: "user", content: "数".repeat(3400) }] });
    const rejected = await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body });
    expect(rejected.status).toBe(400);
    s.setContextCap(2048, "keep_half");
    const kept = (await (await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body })).json()) as { usage: { prompt_tokens: number } };
    expect(kept.usage.prompt_tokens).toBe(1026);
  });

  it("answers completions with finish_reason and usage, and lists models", async () => {
    const s = await openai();
    const res = await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body: "{}" });
    const json = (await res.json()) as { choices: Array<{ finish_reason: string }>; usage: unknown };
    expect(json.choices[0]?.finish_reason).toBe("stop");
    expect(json.usage).toBeTruthy();
    const models = (await (await fetch(`${s.baseUrl}/models`)).json()) as { data: Array<{ id: string }> };
    expect(models.data.map((m) => m.id)).toEqual(["gpt-4o-mini"]);
  });

  it("requires the configured bearer key and scripts missing choices", async () => {
    const s = await openai("sk-test");
    expect((await fetch(`${s.baseUrl}/models`)).status).toBe(401);
    s.enqueue({ fault: "no_choices" });
    const res = await fetch(`${s.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer sk-test" },
      body: "{}",
    });
    expect(await res.json()).not.toHaveProperty("choices");
    expect(s.completionRequests()[0]?.headers.authorization).toBe("Bearer sk-test");
  });
});

describe("vLLM-like stand-in", () => {
  it("lists max_model_len and root, answers /tokenize at the root with the usage estimate, fingerprints completions and refuses over-long prompts", async () => {
    const s = await startVllmStandIn({ reply: "ok" });
    open.push(s);
    const models = (await (await fetch(`${s.baseUrl}/models`)).json()) as { data: Array<Record<string, unknown>> };
    expect(models.data).toEqual([
      { id: VLLM_MODEL, object: "model", owned_by: "vllm", root: "Qwen/Qwen2.5-1.5B-Instruct", parent: null, max_model_len: 32768 },
    ]);
    const messages = [{ role: "user", content: "hello there" }];
    const counted = (await (await fetch(`${s.url}/tokenize`, { method: "POST", body: JSON.stringify({ model: VLLM_MODEL, messages }) })).json()) as Record<
      string,
      unknown
    >;
    expect(counted).toMatchObject({ count: 11, max_model_len: 32768 });
    expect(counted["tokens"]).toHaveLength(11);
    const prompt = (await (
      await fetch(`${s.url}/tokenize`, { method: "POST", body: JSON.stringify({ model: VLLM_MODEL, prompt: "hello there" }) })
    ).json()) as Record<string, unknown>;
    expect(prompt["count"]).toBe(11);
    const reply = (await (
      await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: VLLM_MODEL, messages }) })
    ).json()) as Record<string, unknown>;
    expect(reply).toMatchObject({ system_fingerprint: "fp_stand_in_1", usage: { prompt_tokens: 11 } });
    s.setMaxModelLen(10);
    const over = await fetch(`${s.baseUrl}/chat/completions`, { method: "POST", body: JSON.stringify({ model: VLLM_MODEL, messages }) });
    expect(over.status).toBe(400);
    expect(JSON.stringify(await over.json())).toContain("maximum context length is 10 tokens");
    s.setTokenize(false);
    expect((await fetch(`${s.url}/tokenize`, { method: "POST", body: "{}" })).status).toBe(404);
    expect(s.tokenizeRequests()).toHaveLength(3);
  });
});

describe("freePort", () => {
  it("returns a port where a connection is refused", async () => {
    const port = await freePort();
    await expect(fetch(`http://127.0.0.1:${port}/`)).rejects.toThrow();
  });
});
