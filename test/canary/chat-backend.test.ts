// One chat backend per provider (src/canary/chat-backend.ts), used by the canary probe and the
// LLM judge. The stand-in is a real loopback server that answers a fixed reply; no model runs.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OllamaChatBackend, OpenAIChatBackend } from "../../src/canary/chat-backend.js";
import { OllamaCanaryProbe } from "../../src/canary/ollama-probe.js";
import { OpenAICanaryProbe } from "../../src/canary/openai-probe.js";
import { OllamaJudge } from "../../src/judge/ollama-judge.js";
import { OpenAIJudge } from "../../src/judge/openai-judge.js";
import { sendJson, startLoopbackServer, type LoopbackServer } from "../support/loopback-server.js";

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer(async (request, res) => {
    if (request.path === "/api/tags") sendJson(res, 200, { models: [{ name: "m:latest", digest: "d" }] });
    // Both list the model: availability means the server answers and serves it.
    else if (request.path === "/v1/models") sendJson(res, 200, { data: [{ id: "m", object: "model" }] });
    else if (request.path === "/api/chat") sendJson(res, 200, { message: { content: "SAFE" }, done: true, done_reason: "stop" });
    else if (request.path === "/v1/chat/completions") sendJson(res, 200, { choices: [{ message: { content: "SAFE" }, finish_reason: "stop" }] });
    else sendJson(res, 404, {});
  });
});
afterAll(() => server.close());

const ROLE = { defaults: { model: "m", timeoutSeconds: 5, maxTokens: 8 }, name: "judge", urlOption: "judge url" };

describe("chat backends", () => {
  it("probe and judge of one provider check availability the same way", async () => {
    const userinfo = server.url.replace("http://", "http://user:secret@");
    const ollama = [new OllamaCanaryProbe({ model: "m", ollamaUrl: userinfo }), new OllamaJudge({ model: "m", ollamaUrl: userinfo })];
    const openai = [
      new OpenAICanaryProbe({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "k1" }),
      new OpenAIJudge({ model: "m", baseUrl: `${server.url}/v1`, apiKey: "k1" }),
    ];
    server.requests.length = 0;
    for (const client of [...ollama, ...openai]) expect(await client.isAvailable()).toBe(true);
    expect(server.requests.map((r) => r.path)).toEqual(["/api/tags", "/api/tags", "/v1/models", "/v1/models"]);
    expect(server.requests[2]?.headers.authorization).toBe("Bearer k1");
    expect(server.requests[3]?.headers.authorization).toBe("Bearer k1");
    // Both roles describe themselves alike and never show the credentials of the URL or the key.
    for (const client of [...ollama, ...openai]) {
      const shown = JSON.stringify(client);
      expect(shown).toContain(`"endpointOrigin":"${server.url}"`);
      expect(shown).not.toMatch(/secret|k1/);
    }
  });

  it("a backend sends its own model, temperature and seed with the role's prompt", async () => {
    server.requests.length = 0;
    const ollama = new OllamaChatBackend({ ollamaUrl: server.url, seed: 7 }, ROLE);
    const openai = new OpenAIChatBackend({ baseUrl: `${server.url}/v1`, apiKey: "k2", temperature: 0.5 }, ROLE);
    expect(await ollama.chat({ systemPrompt: "S", userContent: "U", maxTokens: 3 }, null)).toMatchObject({ ok: true, content: "SAFE" });
    expect(await openai.chat({ systemPrompt: "S", userContent: "U", maxTokens: 3 })).toMatchObject({ ok: true, content: "SAFE" });
    expect(server.requests[0]?.body).toMatchObject({ model: "m", options: { num_predict: 3, temperature: 0, seed: 7 } });
    expect(server.requests[1]?.body).toMatchObject({ model: "m", temperature: 0.5, seed: 42, max_tokens: 3 });
    expect(server.requests[1]?.headers.authorization).toBe("Bearer k2");
    expect(JSON.stringify(openai.describe())).not.toContain("k2");
  });

  it("settings are refused in the order the roles always used, named for the role", () => {
    expect(() => new OllamaChatBackend({ timeoutSeconds: -1, ollamaUrl: "not a url" }, ROLE)).toThrow(/judge timeoutSeconds/);
    expect(() => new OpenAIJudge({ apiKey: 5 as never, baseUrl: "not a url" })).toThrow("apiKey must be a string");
    expect(() => new OpenAICanaryProbe({ systemPrompt: "", apiKey: 5 as never })).toThrow(/systemPrompt/i);
  });
});
