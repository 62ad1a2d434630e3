// `/check` answers carry `coverage` (the wire form of the verdict), like `check`'s output.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { refusedUrl } from "../support/free-port.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { pipelineFor, postJson, startService, type RunningService } from "../support/server-harness.js";

let ollama: OllamaStandIn;
const services: RunningService[] = [];

beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "Paris is the capital of France." });
});
afterEach(async () => {
  for (const service of services.splice(0)) await service.close();
  await ollama.close();
});

async function serve(pipeline: SecurityPipeline): Promise<RunningService> {
  const service = await startService(pipeline);
  services.push(service);
  return service;
}

describe("/check answers say how much the canary inspected", () => {
  it("an exercised check answers coverage complete", async () => {
    const service = await serve(pipelineFor(ollama.url));
    const response = await postJson(service.url, { text: "What is the capital of France?" });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ safe: true, coverage: "complete" });
  });

  it("a service without a canary answers coverage none", async () => {
    const service = await serve(new SecurityPipeline({ enableCanary: false }));
    const response = await postJson(service.url, { text: "What is the capital of France?" });
    expect(await response.json()).toMatchObject({ safe: true, degraded: false, coverage: "none" });
  });

  it("an unreachable canary answers coverage none", async () => {
    const service = await serve(pipelineFor(await refusedUrl(), { onWarning: () => {} }));
    const response = await postJson(service.url, { text: "What is the capital of France?" });
    expect(await response.json()).toMatchObject({ safe: true, degraded: true, coverage: "none" });
  });
});
