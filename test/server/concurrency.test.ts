// Concurrency, deadlines, readiness caching and shutdown of the service (docs/serve.md).
import { describe, expect, it } from "vitest";
import { createServer } from "../../src/server/create-server.js";
import { closeGracefully, listenLoopback, ServerBindError } from "../../src/server/lifecycle.js";
import { pipelineFor, postJson, stalledRequest, startService } from "../support/server-harness.js";
import { serviceFixtures } from "../support/service-fixtures.js";
import { watchSettled } from "../support/settled.js";
import { holdReplies } from "../support/held-replies.js";

const { cleanup, standIn, service } = serviceFixtures();

describe("bounded concurrency", () => {
  it("answers 50 concurrent checks correctly with 8 at a time and loses none", async () => {
    const ollama = await standIn(100);
    const running = await service(pipelineFor(ollama.url), { maxConcurrent: 8, maxQueue: 64 });
    const texts = Array.from({ length: 50 }, (_, i) => `What is the capital of country number ${i}?`);
    const responses = await Promise.all(texts.map((text) => postJson(running.url, { text })));
    const verdicts = await Promise.all(responses.map((r) => r.json() as Promise<Record<string, unknown>>));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    // Each answer belongs to its own request: safe_input carries exactly that request's text.
    expect(verdicts.map((v) => v["safe_input"])).toEqual(texts);
    expect(verdicts.every((v) => v["canary_status"] === "exercised" && v["degraded"] === false)).toBe(true);
    expect(ollama.chatRequests()).toHaveLength(50);
    expect(ollama.maxConcurrentChats).toBeLessThanOrEqual(8);
    expect(ollama.maxConcurrentChats).toBeGreaterThan(1);
  });

  it("answers 503 with Retry-After when the queue is full", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris is the capital of France.");
    const running = await service(pipelineFor(ollama.url), { maxConcurrent: 1, maxQueue: 1 });
    const first = postJson(running.url, { text: "one" });
    await waitFor(() => ollama.chatRequests().length === 1);
    const second = postJson(running.url, { text: "two" });
    await waitFor(async () => (await queued(running.url)) === 1);
    const third = await postJson(running.url, { text: "three" });
    expect(third.status).toBe(503);
    expect(third.headers.get("retry-after")).toBe("1");
    expect(await third.json()).toEqual({ error: "server busy: check queue is full" });
    release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    expect(ollama.chatRequests()).toHaveLength(2);
  });
});

describe("a caller that goes away", () => {
  it("abandons its /check: the canary's request is closed, its slot freed for the next caller, and no failure logged", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris is the capital of France.");
    cleanup.push(release);
    const running = await service(pipelineFor(ollama.url, { canaryTimeout: 600 }), { maxConcurrent: 1, maxQueue: 1 });
    const caller = new AbortController();
    const gone = postJson(running.url, { text: "one" }, {}, caller.signal).catch(() => null);
    await waitFor(() => ollama.chatRequests().length === 1);
    caller.abort();
    await gone;
    // The canary's request is closed at once, not left to run to the 600 s timeout.
    await waitFor(() => ollama.abandonedRequests() === 1);
    // The one slot is free again: the next caller is checked (its reply released), not queued behind it.
    release();
    const next = await postJson(running.url, { text: "two" });
    expect(next.status).toBe(200);
    expect(((await next.json()) as Record<string, unknown>)["canary_status"]).toBe("exercised");
    expect(running.logs.filter((l) => l.level === "ERROR")).toEqual([]);
  });
});

describe("deadlines and readiness", () => {
  it("times out a client that sends headers then stalls, while /health answers before that timeout", async () => {
    const ollama = await standIn();
    const running = await service(pipelineFor(ollama.url), { readTimeoutMs: 2000 });
    const stalled = stalledRequest(
      running.port,
      `POST /check HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":`,
    );
    cleanup.push(async () => void stalled.socket.destroy());
    const stalledAnswer = watchSettled(stalled.answer);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await fetch(`${running.url}/health`);
    expect(health.status).toBe(200);
    // /health did not wait for the stalled client: it answered while that request was still open.
    expect(stalledAnswer.settled).toBe(false);
    const answer = await stalled.answer;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: "request body timeout" });
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("times out a client that never finishes its headers with a JSON 408", async () => {
    const ollama = await standIn();
    const running = await service(pipelineFor(ollama.url), { readTimeoutMs: 300 });
    const stalled = stalledRequest(running.port, `POST /check HTTP/1.1\r\nHost: 127.0.0.1:${running.port}\r\n`);
    cleanup.push(async () => void stalled.socket.destroy());
    const answer = await stalled.answer;
    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toEqual({ error: "request timeout" });
  });

  it("answers /health from its cache while every check slot waits on a slow canary", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris is the capital of France.");
    const running = await service(pipelineFor(ollama.url), { maxConcurrent: 1 });
    const slow = postJson(running.url, { text: "hello" });
    await waitFor(() => ollama.chatRequests().length === 1);
    const tagsBefore = ollama.requests.filter((r) => r.path === "/api/tags").length;
    const slowAnswer = watchSettled(slow);
    const body = (await (await fetch(`${running.url}/health`)).json()) as Record<string, unknown>;
    // /health did not wait for a check slot: it answered while the only slot's check was running.
    expect(slowAnswer.settled).toBe(false);
    expect(body).toMatchObject({
      mode: "advisory",
      canary_timeout: 5,
      ready: true,
      health_checked: true,
      queue: { active: 1, queued: 0, max_concurrent: 1, max_queue: 64 },
    });
    // Within the cache lifetime no new inventory request was made for it.
    expect(ollama.requests.filter((r) => r.path === "/api/tags").length).toBe(tagsBefore);
    release();
    expect((await slow).status).toBe(200);
  });
});

describe("lifecycle", () => {
  it("binds 127.0.0.1 on an OS-chosen port and reports a busy port as a typed bind error", async () => {
    const ollama = await standIn();
    const running = await service(pipelineFor(ollama.url));
    const address = running.server.address();
    expect(address).toMatchObject({ address: "127.0.0.1", port: running.port });
    expect(running.port).toBeGreaterThan(0);
    const second = createServer(pipelineFor(ollama.url));
    const error = await listenLoopback(second, running.port).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerBindError);
    expect((error as ServerBindError).reason).toBe("EADDRINUSE");
    expect((error as ServerBindError).message).toBe(`cannot listen on 127.0.0.1:${running.port} (EADDRINUSE)`);
  });

  it("finishes in-flight and queued checks on shutdown and then stops accepting", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris is the capital of France.");
    const running = await startService(pipelineFor(ollama.url), { maxConcurrent: 1 });
    const inFlight = postJson(running.url, { text: "first" });
    const waiting = postJson(running.url, { text: "second" });
    await waitFor(() => ollama.chatRequests().length === 1);
    await waitFor(async () => (await queued(running.url)) === 1);
    const closing = closeGracefully(running.server);
    release();
    // A full drain leaves no request unanswered.
    expect(await closing).toBe(0);
    expect((await inFlight).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect(running.server.listening).toBe(false);
    await expect(fetch(`${running.url}/health`)).rejects.toThrow();
  });
});

describe("a drain cut short", () => {
  it("closes the connections of requests still in flight when force settles, and counts them", async () => {
    const ollama = await standIn();
    const release = holdReplies(ollama, "Paris is the capital of France.");
    const running = await startService(pipelineFor(ollama.url), { maxConcurrent: 1 });
    const inFlight = postJson(running.url, { text: "first" }).then(
      (response) => response.status,
      () => "no answer",
    );
    await waitFor(() => ollama.chatRequests().length === 1);
    expect(await closeGracefully(running.server, Promise.resolve())).toBe(1);
    expect(await inFlight).toBe("no answer");
    release();
  });
});

/** The number of checks waiting for a slot, as /health reports it. */
async function queued(url: string): Promise<number> {
  return ((await (await fetch(`${url}/health`)).json()) as { queue: { queued: number } }).queue.queued;
}

// Polls until the condition holds; the bound only turns a hang into a failure, well inside the test timeout.
async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
