// GET /ready: the health report with 503 unless the service is ready, for readiness probes.
// /health stays 200 (liveness). The service clock is injected, so "the cached result expired"
// takes no real time.
import { afterEach, describe, expect, it } from "vitest";
import { parsePoolEndpoints } from "../../src/canary/pool-endpoints.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { startOllamaStandIn } from "../support/ollama-stand-in.js";
import { startOpenAIStandIn } from "../support/openai-stand-in.js";
import { pipelineFor, startService } from "../support/server-harness.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

async function get(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The report without the fields that change between two calls. */
function shape(body: Record<string, unknown>): Record<string, unknown> {
  const { health_age_seconds: _age, queue: _queue, ...rest } = body;
  return rest;
}

describe("the health report of a canary pool", () => {
  it("names the pool's endpoints, never the provider's default URL, for Ollama and OpenAI-compatible pools alike", async () => {
    const a = await startOllamaStandIn();
    const b = await startOllamaStandIn();
    const api = await startOpenAIStandIn();
    cleanup.push(
      () => a.close(),
      () => b.close(),
      () => api.close(),
    );
    const ollamaPool = new SecurityPipeline({ mode: "advisory", canaryPool: { endpoints: parsePoolEndpoints([a.url, `${b.url}#2`], "--canary-endpoint") } });
    const served = await startService(ollamaPool);
    cleanup.push(() => served.close());
    const report = (await get(`${served.url}/health`)).body;
    expect(report).toMatchObject({ ready: true, endpoint_origin: `${a.url}, ${b.url}`, endpoint_class: "loopback", canary_endpoints: [a.url, b.url] });
    expect(report).not.toHaveProperty("ollama_url");

    const vllmPool = new SecurityPipeline({
      mode: "advisory",
      provider: "openai",
      apiKey: "sk-test",
      canaryPool: { endpoints: [{ url: api.baseUrl, concurrency: 4 }] },
      canaryTimeout: 5,
    });
    const sidecar = await startService(vllmPool);
    cleanup.push(() => sidecar.close());
    const vllm = (await get(`${sidecar.url}/health`)).body;
    const origin = new URL(api.baseUrl).origin;
    expect(vllm).toMatchObject({ endpoint_origin: origin, endpoint_class: "loopback", canary_endpoints: [origin] });
    expect(vllm).not.toHaveProperty("base_url");
    expect(JSON.stringify(vllm)).not.toContain("api.openai.com");
  });
});

describe("GET /ready", () => {
  it("answers 200 with the /health body while the canary answers, 503 once it stops answering and the cached result expired, and 200 again when it is back", async () => {
    const ollama = await startOllamaStandIn();
    cleanup.push(() => ollama.close());
    let now = 0;
    // A long stale wait: the refresh is always awaited, so the answer never depends on its speed.
    const service = await startService(pipelineFor(ollama.url), { now: () => now, healthStaleWaitMs: 30_000 });
    cleanup.push(() => service.close());

    const up = await get(`${service.url}/ready`);
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ ready: true, canary_available: true, health_checked: true, health_stale: false });
    expect(Object.keys(up.body).sort()).toEqual(Object.keys((await get(`${service.url}/health`)).body).sort());
    expect(shape(up.body)).toEqual(shape((await get(`${service.url}/health`)).body));

    // The stand-in stops answering; the result from before is still inside its reuse window.
    ollama.setRouteFault("/api/tags", { fault: "drop" });
    now = 60_000;
    const down = await get(`${service.url}/ready`);
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ ready: false, degraded: true, status: "degraded", canary_available: false });
    // Liveness is unaffected: /health still answers 200, with the same report.
    const health = await get(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ ready: false, canary_available: false });

    ollama.setRouteFault("/api/tags", null);
    now = 120_000;
    const back = await get(`${service.url}/ready`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ ready: true, canary_available: true });
  });

  it("answers 503 when the cached result is too old and the canary has not answered a new check in time", async () => {
    const ollama = await startOllamaStandIn();
    cleanup.push(() => ollama.close());
    let now = 0;
    const service = await startService(pipelineFor(ollama.url), { now: () => now, healthStaleWaitMs: 0 });
    cleanup.push(() => service.close());
    ollama.setRouteFault("/api/tags", { fault: "hang" });
    now = 60_000;
    const stale = await get(`${service.url}/ready`);
    expect(stale.status).toBe(503);
    expect(stale.body).toMatchObject({ ready: false, health_stale: true });
  });

  it("answers 503 while an OpenAI-compatible server answers GET /models without the canary model (every check would fail), and 200 once it lists it", async () => {
    const api = await startOpenAIStandIn({ models: ["some-other-model"] });
    cleanup.push(() => api.close());
    let now = 0;
    const pipeline = new SecurityPipeline({ mode: "advisory", provider: "openai", baseUrl: api.baseUrl, canaryModel: "gpt-4o-mini", canaryTimeout: 5 });
    const service = await startService(pipeline, { now: () => now, healthStaleWaitMs: 30_000 });
    cleanup.push(() => service.close());
    const missing = await get(`${service.url}/ready`);
    expect(missing.status).toBe(503);
    expect(missing.body).toMatchObject({ ready: false, canary_available: false });

    api.setModels(["gpt-4o-mini"]);
    now = 60_000;
    const served = await get(`${service.url}/ready`);
    expect(served.status).toBe(200);
    expect(served.body).toMatchObject({ ready: true, canary_available: true });
  });

  it("with the canary disabled on purpose (--no-canary) answers 200 and says the screening is structural only", async () => {
    const service = await startService(new SecurityPipeline({ enableCanary: false }));
    cleanup.push(() => service.close());
    const ready = await get(`${service.url}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ ready: true, canary_enabled: false, coverage: "structural_only", canary_timeout: null });
  });

  it("without a pipeline answers 503 'not initialized'; other methods get 405 and a query 404", async () => {
    const empty = await startService(null);
    cleanup.push(() => empty.close());
    const ready = await get(`${empty.url}/ready`);
    expect(ready).toEqual({ status: 503, body: { status: "degraded", ready: false, degraded: true, error: "not initialized" } });
    const post = await fetch(`${empty.url}/ready`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(`${empty.url}/ready?probe=1`)).status).toBe(404);
  });
});
