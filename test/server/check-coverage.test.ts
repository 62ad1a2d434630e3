// `/check` answers carry `coverage` (the wire form of the verdict), like `check`'s output, and
// the service's log names a canary outage once (the pipeline's warning), not once per request.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { refusedUrl } from "../support/free-port.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { runService } from "../../src/server/run-service.js";
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

describe("the service's log names a canary outage once", () => {
  it("three /check answers with the canary unreachable log one WARNING naming it, and each answer says coverage none", async () => {
    const url = await refusedUrl();
    const log: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runService({
      pipeline: { ollamaUrl: url, canaryTimeout: 5 },
      service: { maxConcurrent: 1, maxQueue: 4, readTimeoutMs: 5000, maxConnections: 16 },
      port: 0,
      log: (level, message) => log.push(`${level} ${message}`),
      stop: stopped,
      force: new Promise(() => {}),
    });
    await expect.poll(() => log.find((line) => line.includes("Port:"))).toBeDefined();
    const port = Number(/Port: (\d+)/.exec(log.join("\n"))?.[1]);
    for (const text of ["one", "two", "three"]) {
      const answer = (await (await postJson(`http://127.0.0.1:${port}`, { text })).json()) as { coverage: string };
      expect(answer.coverage).toBe("none");
    }
    stop();
    await done;
    const outages = log.filter((line) => line.includes("canary unreachable"));
    expect(outages).toHaveLength(1);
    expect(outages[0]).toMatch(new RegExp(`^WARNING canary unreachable at ${url} \\(model qwen2\\.5:1\\.5b\\)`));
  });
});
