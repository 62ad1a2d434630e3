import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runContextGate, IngestGateError } from "../../src/ingest/gate.js";
import { ingestRecords } from "../../src/ingest/run.js";
import { STRICT_V1 } from "../../src/documents/policy.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { requiredCanaryContext } from "../../src/canary/context.js";
import { DEFAULT_CANARY_SYSTEM_PROMPT } from "../../src/documents/system-prompt.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { freePort } from "../support/free-port.js";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { preflightCanary } from "../../src/pipeline/canary-preflight.js";

const REQUIRED = requiredCanaryContext({ segmentChars: STRICT_V1.segment_chars, systemPrompt: DEFAULT_CANARY_SYSTEM_PROMPT, maxTokens: 256 });

let ollama: OllamaStandIn;
beforeEach(async () => {
  ollama = await startOllamaStandIn({ reply: "A summary.", contextLength: 32768 });
});
afterEach(async () => {
  await ollama.close();
});

const showRequests = () => ollama.requests.filter((request) => request.path === "/api/show");
const gated = (extra: ConstructorParameters<typeof SecurityPipeline>[0] = {}) =>
  new SecurityPipeline({ ollamaUrl: ollama.url, canaryNumCtx: REQUIRED, ...extra });

describe("the canary context gate", () => {
  it("passes a genuine pipeline whose num_ctx and trained length hold a segment, after one /api/show", async () => {
    const gate = await runContextGate(gated(), STRICT_V1);
    expect(gate).toMatchObject({ verified: true, required: REQUIRED, contextLength: 32768 });
    expect(gate.modelDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(showRequests()).toHaveLength(1);
  });

  it("refuses before any network call when num_ctx is unset or one short", async () => {
    for (const canaryNumCtx of [null, REQUIRED - 1]) {
      await expect(runContextGate(gated({ canaryNumCtx }), STRICT_V1)).rejects.toThrow(/cannot hold a whole segment/);
    }
    expect(ollama.requests).toHaveLength(0);
  });

  it("refuses a trained context length below what a segment needs, and an unknown model", async () => {
    ollama.setContextLength(REQUIRED - 1);
    await expect(runContextGate(gated(), STRICT_V1)).rejects.toThrow(/trained context length/);
    await expect(runContextGate(gated({ canaryModel: "not-installed:7b" }), STRICT_V1)).rejects.toThrow(
      `canary model not-installed:7b is not available at ${ollama.url} (it serves: qwen2.5:1.5b, qwen3:4b); fix: ollama pull not-installed:7b`,
    );
  });

  it("a server that lists the model but whose /api/show fails is named, not called unreachable or the model unknown", async () => {
    ollama.setRouteFault("/api/show", { fault: "status", status: 500 });
    const error = await runContextGate(gated(), STRICT_V1).catch((e: unknown) => e);
    expect((error as Error).message).toBe(
      `could not read the canary model's context length from POST /api/show at ${ollama.url}; ingest refuses to run without it`,
    );
  });

  it("refuses callbacks, a judge model and an OpenAI-compatible server it cannot identify", async () => {
    await expect(runContextGate(gated({ callbacks: { onPass: () => {} } }), STRICT_V1)).rejects.toThrow(/callbacks/);
    await expect(runContextGate(gated({ judgeModel: "qwen3:4b" }), STRICT_V1)).rejects.toThrow(/judgeModel/);
    const openai = new SecurityPipeline({ provider: "openai", baseUrl: `${ollama.url}/v1` });
    // Ollama's stand-in has no /v1 routes: the warm-up fails, and the gate says where.
    await expect(runContextGate(openai, STRICT_V1)).rejects.toThrow(/warm-up call to http:\/\/127\.0\.0\.1:\d+ failed/);
    // It answers 404 there: the fix points at the base URL.
    await expect(runContextGate(openai, STRICT_V1)).rejects.toThrow(
      /failed \(http_error: the server answered with an error status\); .*; fix: check that --base-url is the server's OpenAI-compatible base URL/,
    );
  });

  it("names the cause and the fix when nothing answers at an OpenAI-compatible base URL, in ingest's gate and in the preflight of check and screen", async () => {
    const closed = await freePort();
    const openai = new SecurityPipeline({ provider: "openai", baseUrl: `http://127.0.0.1:${closed}/v1` });
    await expect(runContextGate(openai, STRICT_V1)).rejects.toThrow(
      `canary at http://127.0.0.1:${closed} is not reachable (connection refused); fix: start the server or pass --base-url`,
    );
    await expect(preflightCanary(openai)).rejects.toThrow(
      `the canary warm-up call to http://127.0.0.1:${closed} failed (unavailable: nothing answered at that address); ` +
        "the run is refused without proof of the server's context window; fix: start the server, or name it rightly: its base URL with --base-url (--canary-endpoint for each server of a pool)",
    );
  });

  it("says a server that accepts the connection and never answers timed out, not that it may not be Ollama", async () => {
    const silent = createServer(() => {
      // Accepts, reads nothing, answers nothing.
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const hanging = gated({ ollamaUrl: `http://127.0.0.1:${port}`, canaryTimeout: 0.3 });
      const error = (await runContextGate(hanging, STRICT_V1).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(
        new RegExp(
          `^the canary at http://127\\.0\\.0\\.1:${port} did not answer GET /api/tags before the timeout .*; fix: check that the server is running, reachable from here, and not stuck or still starting`,
        ),
      );
      // The timeout cannot tell this server from one that never accepted the connection: the line claims neither.
      expect(error.message).not.toContain("accepted the connection");
      expect(error.message).not.toContain("may not be Ollama");
    } finally {
      silent.closeAllConnections?.();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("refuses segment_chars above the pipeline's max input length", async () => {
    await expect(runContextGate(gated({ maxInputLength: 1000 }), STRICT_V1)).rejects.toThrow(/exceeds the pipeline's max_input_length/);
  });

  it("refuses a look-alike or subclassed pipeline unless unverifiedPipeline is given, and records it as unverified", async () => {
    const real = gated();
    const wrapper = { check: (text: string) => real.check(text) };
    await expect(runContextGate(wrapper, STRICT_V1)).rejects.toBeInstanceOf(IngestGateError);
    class Sub extends SecurityPipeline {}
    await expect(runContextGate(new Sub({ ollamaUrl: ollama.url, canaryNumCtx: REQUIRED }), STRICT_V1)).rejects.toThrow(/needs a SecurityPipeline/);
    const run = await ingestRecords(wrapper, { inputs: ["hello"] }, { unverifiedPipeline: true, manifestVersion: 1 });
    expect(run.manifest.document.pipeline.canary_context_verified).toBe(false);
  });

  it("unverifiedPipeline never relaxes the gate for a genuine pipeline", async () => {
    await expect(runContextGate(gated({ canaryNumCtx: null }), STRICT_V1, { unverifiedPipeline: true })).rejects.toThrow(/cannot hold/);
  });

  it("a genuine pipeline's verdicts cannot be swapped for another text's (a reused verdict is an error)", async () => {
    const real = gated();
    const cached = await real.check("some other text entirely");
    const liar = { check: async () => cached };
    const run = await ingestRecords(liar, { inputs: ["hello"] }, { unverifiedPipeline: true, manifestVersion: 1 });
    const record = run.manifest.document.records[0];
    expect(record?.segments[0]?.state).toBe("error");
    expect(record?.hold_reasons).toContain("error");
  });
});
