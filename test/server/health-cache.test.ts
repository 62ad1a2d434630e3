// The /health readiness cache: a result is reused for its window and never served once older
// than it, with an injected monotonic clock so "idle for a minute" takes no real time.
import { afterEach, describe, expect, it } from "vitest";
import type { HealthReport } from "../../src/pipeline/health.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { HealthCache } from "../../src/server/create-server.js";
import { startOllamaStandIn } from "../support/ollama-stand-in.js";
import { pipelineFor, startService } from "../support/server-harness.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

class FakeClock {
  ms = 0;
  readonly now = (): number => this.ms;
}

function report(ready: boolean, marker: string): HealthReport {
  return {
    structural_filter: true,
    canary_enabled: true,
    mode: "advisory",
    provider: "ollama",
    analyzer: "regex",
    on_degraded: "fail_open",
    canary_model: marker,
    canary_available: ready,
    ready,
    degraded: !ready,
    status: ready ? "ready" : "degraded",
    coverage: "behavioral",
  };
}

/** A pipeline whose health check answers from a script (one entry per call; the last repeats). */
function scriptedPipeline(script: Array<() => Promise<HealthReport>>): { pipeline: SecurityPipeline; calls: () => number } {
  let calls = 0;
  // The pipeline is frozen after construction, so the script lives in this closure.
  class ScriptedPipeline extends SecurityPipeline {
    override healthCheck(): Promise<HealthReport> {
      const step = script[Math.min(calls, script.length - 1)]!;
      calls++;
      return step();
    }
  }
  return { pipeline: new ScriptedPipeline({ mode: "advisory", ollamaUrl: "http://127.0.0.1:9" }), calls: () => calls };
}

describe("/health never serves a result older than its reuse window", () => {
  it("after an idle minute the first /health answer comes from a new check, not the old one", async () => {
    const clock = new FakeClock();
    const { pipeline, calls } = scriptedPipeline([async () => report(true, "before-idle"), async () => report(false, "after-idle")]);
    const cache = new HealthCache(pipeline, 5000, { now: clock.now });
    await cache.refresh();
    clock.ms = 60_000;
    const served = await cache.current();
    expect(calls()).toBe(2);
    expect(served.report?.canary_model).toBe("after-idle");
    expect(served.report?.ready).toBe(false);
    expect(served.ageMs).toBeLessThan(5000);
    expect(served.stale).toBe(false);
  });

  it("when the backend does not answer in time, a too-old result is withdrawn and marked stale", async () => {
    const clock = new FakeClock();
    const never = new Promise<HealthReport>(() => undefined);
    const { pipeline } = scriptedPipeline([async () => report(true, "old"), () => never]);
    const cache = new HealthCache(pipeline, 5000, { now: clock.now, staleWaitMs: 20 });
    await cache.refresh();
    clock.ms = 60_000;
    // The backend never answers, so an answer at all shows the wait was bounded (a cache that waited
    // for the backend would hang until the test times out).
    const served = await cache.current();
    expect(served).toEqual({ report: null, ageMs: 60_000, stale: true });
  });

  it("age counts from the start of the check, so a slow check's result expires on time", async () => {
    const clock = new FakeClock();
    const slow = async (): Promise<HealthReport> => {
      clock.ms += 4000; // the check itself took 4 s
      return report(true, "slow");
    };
    const never = new Promise<HealthReport>(() => undefined);
    const { pipeline } = scriptedPipeline([slow, () => never]);
    const cache = new HealthCache(pipeline, 5000, { now: clock.now, staleWaitMs: 10 });
    await cache.refresh();
    clock.ms += 1500; // 5.5 s after the check started, 1.5 s after it finished
    const served = await cache.current();
    expect(served.report).toBeNull();
    expect(served.stale).toBe(true);
    expect(served.ageMs).toBe(5500);
  });

  it("a result inside the window is served at once and refreshed ahead of expiry", async () => {
    const clock = new FakeClock();
    const { pipeline, calls } = scriptedPipeline([async () => report(true, "first"), async () => report(true, "second")]);
    const cache = new HealthCache(pipeline, 5000, { now: clock.now });
    await cache.refresh();
    clock.ms = 1000;
    expect((await cache.current()).report?.canary_model).toBe("first");
    expect(calls()).toBe(1);
    clock.ms = 3000; // past half the window: still served, and a refresh starts in the background
    const served = await cache.current();
    expect(served.report?.canary_model).toBe("first");
    expect(served.ageMs).toBe(3000);
    expect(calls()).toBe(2);
    await cache.refresh();
    clock.ms = 6000;
    const next = await cache.current();
    expect(next.report?.canary_model).toBe("second");
    expect(next.ageMs).toBe(3000);
  });

  it("over HTTP, /health after an idle period reports the backend as it is now", async () => {
    const ollama = await startOllamaStandIn();
    cleanup.push(() => ollama.close());
    const clock = new FakeClock();
    const running = await startService(pipelineFor(ollama.url), { now: clock.now });
    cleanup.push(() => running.close());
    const before = (await (await fetch(`${running.url}/health`)).json()) as Record<string, unknown>;
    expect(before).toMatchObject({ ready: true, health_checked: true });
    // The backend goes away while the service sits idle for ten minutes.
    ollama.setRouteFault("/api/tags", { fault: "status", status: 500 });
    clock.ms = 600_000;
    const after = (await (await fetch(`${running.url}/health`)).json()) as Record<string, unknown>;
    expect(after).toMatchObject({ ready: false, degraded: true, canary_available: false });
    expect(after["health_stale"]).toBe(false);
    expect(after["health_age_seconds"]).toBeLessThan(5);
  });

  it("over HTTP, a hung backend after idle gives ready:false with health_stale:true, within the wait bound", async () => {
    const ollama = await startOllamaStandIn();
    cleanup.push(() => ollama.close());
    const clock = new FakeClock();
    const running = await startService(pipelineFor(ollama.url), { now: clock.now, healthStaleWaitMs: 50 });
    cleanup.push(() => running.close());
    ollama.setRouteFault("/api/tags", { fault: "hang" });
    clock.ms = 600_000;
    // The inventory request hangs: an answer marked stale shows the wait bound ended it (a fresh
    // degraded report would only come after the probe's own timeout, without health_stale).
    const after = (await (await fetch(`${running.url}/health`)).json()) as Record<string, unknown>;
    expect(after).toMatchObject({ ready: false, degraded: true, status: "degraded", health_checked: true, health_stale: true, health_age_seconds: 600 });
    // No check finished recently: the check itself is "failed", and where checks go is still said.
    expect(after).toMatchObject({
      canary_check: "failed",
      canary_available: false,
      ollama_url: ollama.url,
      endpoint_class: "loopback",
      canary_context: expect.any(String),
    });
  });
});
