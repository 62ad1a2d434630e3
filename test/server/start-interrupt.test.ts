// The first interrupt ends the service's start-up waits: a canary that accepts connections but
// never answers must not hold a Ctrl-C for its whole timeout, and nothing is served after it.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runService } from "../../src/server/run-service.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn();
});
afterEach(async () => {
  await ollama.close();
});

describe("an interrupt while the service starts", () => {
  it("during a canary check that hangs: the start ends with 0, no port is bound, the log says nothing was served", async () => {
    ollama.setRouteFault("/api/tags", { fault: "hang" });
    const log: string[] = [];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const done = runService({
      pipeline: { ollamaUrl: ollama.url, canaryTimeout: 600 },
      service: { maxConcurrent: 1, maxQueue: 4, readTimeoutMs: 5000, maxConnections: 16 },
      port: 0,
      log: (level, message) => log.push(`${level} ${message}`),
      stop: stopped,
      force: new Promise(() => {}),
    });
    // The check has started (the stand-in holds the model list) before the interrupt.
    await expect.poll(() => ollama.requests.some((r) => r.path === "/api/tags")).toBe(true);
    stop();
    expect(await done).toBe(0);
    expect(log.at(-1)).toBe("INFO 🐤 Interrupted before the service started: nothing was served");
    expect(log.some((line) => line.includes("Port:"))).toBe(false);
  });
});
