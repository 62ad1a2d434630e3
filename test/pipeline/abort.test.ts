// A caller's abort abandons the canary call in flight: the check rejects with the abort's reason
// (never a verdict, never an outage), the canary's connection is closed instead of left to run
// to its timeout, and the same holds for a run of ingest or screen that is interrupted.
import { getEventListeners } from "node:events";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parsePoolEndpoints } from "../../src/canary/pool-endpoints.js";
import { ingestFiles } from "../../src/ingest/files.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { screenBatch } from "../../src/screen/screen-batch.js";
import { ingestOptions, tempDir } from "../support/publish-fixtures.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";
import { firstChat, holdReplies } from "../support/held-replies.js";

let ollama: OllamaStandIn;
/** Lets the held replies go (after each test too, so no request is left hanging). */
let release: () => void;

beforeEach(async () => {
  ollama = await startOllamaStandIn();
  release = holdReplies(ollama, "A short summary of the text.");
});
afterEach(async () => {
  release();
  await ollama.close();
});

const TEXT = "Returns are accepted within 30 days of purchase.";
const pipelineWith = (fetch?: typeof globalThis.fetch) =>
  new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl: ollama.url, canaryTimeout: 600, ...(fetch ? { fetch } : {}) });

describe("a check whose caller aborts", () => {
  it.each([
    ["the built-in transport", undefined],
    ["an injected fetch", ((url, init) => globalThis.fetch(url, init)) as typeof globalThis.fetch],
  ])("rejects with the abort's reason while the canary still holds its reply, and closes that request (%s)", async (_, fetch) => {
    const pipeline = pipelineWith(fetch);
    const controller = new AbortController();
    const reason = new Error("caller went away");
    const checking = pipeline.check(TEXT, { signal: controller.signal });
    await firstChat(ollama);
    controller.abort(reason);
    await expect(checking).rejects.toBe(reason);
    await expect.poll(() => ollama.abandonedRequests()).toBe(1);
    // The pipeline is as it was: the next check, not aborted, gets its verdict once the reply comes.
    release();
    const verdict = await pipeline.check(TEXT);
    expect(verdict.canaryStatus).toBe("exercised");
    expect(verdict.degraded).toBe(false);
  });

  it("rejects at once when it aborts before the chat, during a warm-up that does not answer", async () => {
    release();
    ollama.setRouteFault("/api/ps", { fault: "hang" });
    const controller = new AbortController();
    const checking = pipelineWith().check(TEXT, { signal: controller.signal });
    await expect.poll(() => ollama.requests.some((r) => r.path === "/api/ps")).toBe(true);
    controller.abort(new Error("gone during the warm-up"));
    await expect(checking).rejects.toThrow("gone during the warm-up");
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("a check waiting for a pool's only slot leaves the queue when it aborts, and the slot serves the next check", async () => {
    const pipeline = new SecurityPipeline({
      canaryPool: { endpoints: parsePoolEndpoints([`${ollama.url}#1`], "--canary-endpoint") },
      canaryTimeout: 600,
    });
    const first = pipeline.check(TEXT);
    await firstChat(ollama);
    const controller = new AbortController();
    const waiting = pipeline.check(`${TEXT} Second.`, { signal: controller.signal });
    controller.abort(new Error("gone while queued"));
    await expect(waiting).rejects.toThrow("gone while queued");
    release();
    expect((await first).degraded).toBe(false);
    // The aborted check took no slot: the next one is checked, and only two chats were sent.
    expect((await pipeline.check(`${TEXT} Third.`)).degraded).toBe(false);
    expect(ollama.chatRequests()).toHaveLength(2);
  });

  it("refuses an option it does not know and a signal that is not an AbortSignal, before anything is sent", async () => {
    const pipeline = pipelineWith();
    await expect(pipeline.check(TEXT, { signall: new AbortController().signal } as never)).rejects.toThrow(
      /unknown check option "signall"; did you mean 'signal'\?/,
    );
    await expect(pipeline.check(TEXT, { signal: "stop" } as never)).rejects.toThrow("check option signal must be an AbortSignal, got string");
    await expect(pipeline.check(TEXT, { signal: 5 } as never)).rejects.toMatchObject({ name: "UsageError", code: "usage" });
    expect(ollama.chatRequests()).toHaveLength(0);
  });

  it("an abort before the check sends nothing", async () => {
    const controller = new AbortController();
    controller.abort(new Error("already gone"));
    await expect(pipelineWith().check(TEXT, { signal: controller.signal })).rejects.toThrow("already gone");
    expect(ollama.chatRequests()).toHaveLength(0);
  });
});

describe("a pool's check whose caller aborts", () => {
  it("is tried on no other endpoint and counts against none: the next checks go to both as before", async () => {
    // Both endpoints hold their replies: whichever the pool picks, the check is in flight when it is aborted.
    const other = await startOllamaStandIn();
    const releaseOther = holdReplies(other, "A short summary of the text.");
    try {
      const attempts: Array<Record<string, unknown>> = [];
      const pipeline = new SecurityPipeline({
        // One check in flight per endpoint: the held one, then the other endpoint takes the next.
        canaryPool: { endpoints: parsePoolEndpoints([`${ollama.url}#1`, `${other.url}#1`], "--canary-endpoint"), onAttempt: (a) => attempts.push({ ...a }) },
        canaryTimeout: 600,
      });
      const controller = new AbortController();
      const held = pipeline.check(TEXT, { signal: controller.signal });
      const chats = () => ollama.chatRequests().length + other.chatRequests().length;
      await firstChat({ chatRequests: () => [...ollama.chatRequests(), ...other.chatRequests()] });
      const chatsBefore = chats();
      controller.abort(new Error("gone"));
      await expect(held).rejects.toThrow("gone");
      await expect.poll(() => ollama.abandonedRequests() + other.abandonedRequests()).toBe(1);
      // Not retried on the other endpoint, and no attempt logged as a failure to be retried.
      expect(chats()).toBe(chatsBefore);
      expect(attempts.filter((a) => a["retried"] === true || a["taken_out"] === true)).toEqual([]);
      release();
      releaseOther();
      for (let i = 0; i < 4; i++) expect((await pipeline.check(`${TEXT} ${i}`)).degraded).toBe(false);
    } finally {
      releaseOther();
      await other.close();
    }
  });
});

describe("an interrupted run abandons its checks in flight", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    await writeFile(join(dir, "in.jsonl"), `${JSON.stringify({ id: "a", text: TEXT })}\n`);
  });
  afterEach(async () => {
    await cleanup();
  });

  it("ingestFiles rejects with the interrupt, closes the canary's request and writes nothing", async () => {
    const controller = new AbortController();
    const running = ingestFiles(ingestOptions(dir, ollama.url, { signal: controller.signal }));
    await firstChat(ollama);
    controller.abort(new Error("stop"));
    await expect(running).rejects.toThrow("interrupted; nothing written");
    await expect.poll(() => ollama.abandonedRequests()).toBe(1);
    expect((await readdir(dir)).sort()).toEqual(["in.jsonl"]);
  });

  it("a run of many checks in flight on one signal, not aborted, finishes without a listener-leak warning", async () => {
    release();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => void warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const texts = Array.from({ length: 40 }, (_, i) => `${TEXT} Item ${i}.`);
      await writeFile(join(dir, "many.jsonl"), `${texts.map((text, i) => JSON.stringify({ id: `r${i}`, text })).join("\n")}\n`);
      const controller = new AbortController();
      await ingestFiles(ingestOptions(dir, ollama.url, { input: "many.jsonl", concurrency: 16, signal: controller.signal }));
      const batch = await screenBatch(texts, pipelineWith(), { signal: controller.signal, concurrency: 16 });
      expect(batch.items).toHaveLength(40);
      // One long-lived signal given to batch after batch keeps no listener of theirs.
      for (let i = 0; i < 12; i++) await screenBatch([`${TEXT} Batch ${i}.`], pipelineWith(), { signal: controller.signal });
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      // A warning is emitted on the next turn of the event loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("screenBatch rejects with the abort instead of reporting a degraded item, and closes the canary's request", async () => {
    const controller = new AbortController();
    const reason = new Error("batch abandoned");
    const screening = screenBatch([TEXT], pipelineWith(), { signal: controller.signal });
    await firstChat(ollama);
    controller.abort(reason);
    await expect(screening).rejects.toBe(reason);
    await expect.poll(() => ollama.abandonedRequests()).toBe(1);
  });
});
