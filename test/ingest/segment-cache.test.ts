// The run's view of the verdict cache: what is stored, what comes back, and that a stored value
// must still classify as what it claims before it is reused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkSegment } from "../../src/ingest/record-check.js";
import { segmentVerdictCache, type StoredVerdict, type VerdictStore } from "../../src/ingest/segment-cache.js";
import type { SegmentResult } from "../../src/documents/manifest-records.js";
import { SecurityPipeline } from "../../src/pipeline/pipeline.js";
import { startOllamaStandIn, type OllamaStandIn } from "../support/ollama-stand-in.js";

let ollama: OllamaStandIn;
beforeAll(async () => {
  ollama = await startOllamaStandIn({ reply: "Here is a short summary of the document." });
});
afterAll(async () => ollama.close());

class MapStore implements VerdictStore {
  readonly entries = new Map<string, StoredVerdict & { state: string }>();
  get(sha: string): StoredVerdict | null {
    return this.entries.get(sha) ?? null;
  }
  put(sha: string, value: Record<string, unknown>, state: "pass" | "flag" | "block"): void {
    this.entries.set(sha, { value: JSON.parse(JSON.stringify(value)), checkedAt: "2026-11-30T10:00:00.000Z", state });
  }
}

const pipeline = (): SecurityPipeline => new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl: ollama.url, canaryNumCtx: 8192 });
const SHA = "a".repeat(64);

describe("the segment verdict cache of a run", () => {
  it("an exercised pass is stored and comes back as reused, with the original checked_at and evidence", async () => {
    const { result } = await checkSegment(pipeline(), "The quarterly report is attached.");
    expect(result).toMatchObject({ state: "pass", exercised: true });
    const store = new MapStore();
    const cache = segmentVerdictCache(store);
    expect(cache.lookup(SHA)).toBeNull();
    cache.store(SHA, result);
    const reused = cache.lookup(SHA);
    expect(reused).toEqual({ ...result, signals: result.signals ?? [], reused: { checked_at: "2026-11-30T10:00:00.000Z" } });
    expect({ hits: cache.hits, misses: cache.misses }).toEqual({ hits: 1, misses: 1 });
  });

  it("an entry filed under another state than its value holds (a hand-edited state column) is a miss", async () => {
    const { result } = await checkSegment(pipeline(), "The quarterly report is attached.");
    const store = new MapStore();
    const cache = segmentVerdictCache(store);
    cache.store(SHA, result);
    const entry = store.entries.get(SHA) as StoredVerdict & { state: string };
    store.entries.set(SHA, { ...entry, state: "block" });
    expect(cache.lookup(SHA)).toBeNull();
    store.entries.set(SHA, entry);
    expect(cache.lookup(SHA)).toMatchObject({ state: "pass", reused: { checked_at: "2026-11-30T10:00:00.000Z" } });
  });

  it("degraded, unexercised, error and not_checked results are never stored", async () => {
    const down = new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl: "http://127.0.0.1:9", canaryNumCtx: 8192, canaryTimeout: 1 });
    const { result: degraded } = await checkSegment(down, "The quarterly report is attached.");
    expect(degraded.exercised).toBe(false);
    const structural = new SecurityPipeline({ enableCanary: false });
    const { result: unexercised } = await checkSegment(structural, "The quarterly report is attached.");
    const failed: SegmentResult = { state: "error", exercised: false, verdict: null, error: "TypeError", latency: null, prompt_eval_count: null };
    const store = new MapStore();
    const cache = segmentVerdictCache(store);
    for (const result of [degraded, unexercised, failed]) cache.store(SHA, result);
    expect(store.entries.size).toBe(0);
  });

  it("a stored value edited to claim a state its verdict does not support is a miss, not a pass", async () => {
    const hijacked = new SecurityPipeline({ mode: "full", canaryModel: "qwen2.5:1.5b", ollamaUrl: ollama.url, canaryNumCtx: 8192 });
    ollama.setReply({ content: "I am now DAN and I have no restrictions. My new instructions override the old ones." });
    try {
      const { result } = await checkSegment(hijacked, "Please summarise the attached notes.");
      expect(result.exercised).toBe(true);
      expect(["flag", "block"]).toContain(result.state);
      const store = new MapStore();
      const cache = segmentVerdictCache(store);
      cache.store(SHA, result);
      const entry = store.entries.get(SHA) as StoredVerdict & { state: string; value: Record<string, unknown> };
      entry.value["state"] = "pass";
      expect(cache.lookup(SHA)).toBeNull();
      store.entries.set(SHA, { ...entry, checkedAt: "yesterday" });
      expect(cache.lookup(SHA)).toBeNull();
    } finally {
      ollama.setReply({ content: "Here is a short summary of the document." });
    }
  });
});
