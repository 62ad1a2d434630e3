// bench:verdict-cache (`npm run bench:verdict-cache -- [--records N] [--entries N] [--concurrency N] [--dir DIR]`,
// after `npm run build`): what the verdict cache costs on disk and in time.
// 1. Bytes per cached segment: a cold `ingest --cache` of N generated records (default 5,000)
//    against the stand-in canary answering at once, then the cache file's bytes on disk divided
//    by its entries (one per cached segment; the file also holds the records' whole entries).
//    Target (issue 28): at most 1,000 bytes. Prints `target_met=yes|no`.
// 2. Speed: N puts (each its own committed transaction, as in a run), then N hits and N misses
//    by get, with a verdict-sized value (default 20,000 entries).
// The last line is machine-readable: `bytes_per_cached_segment=… cache_puts_per_s=…
// cache_hits_per_s=… cache_misses_per_s=… peak_rss_mb=… file_mb=… target_met=yes|no`.
// No model runs here: the stand-in's replies are not model figures; only the cache's are measured.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheIdentity, type CanaryIdentity } from "../src/cache/identity.js";
import { VerdictCache } from "../src/cache/verdict-cache.js";
import { sha256Hex } from "../src/core/hash.js";
import { cacheStats } from "../src/verbs/cache.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";
import { runCliMeasured } from "./_child-run.js";
import { writeGeneratedCorpus } from "./_generated-corpus.js";
import { benchIngestArgs, startBenchStandIn } from "./_standin.js";

/** Issue 28's target for the cache's bytes on disk per cached segment. */
const MAX_BYTES_PER_SEGMENT = 1000;

const USAGE =
  "usage: npm run bench:verdict-cache [-- --records 5000 --entries 20000 --concurrency 16 --dir DIR]\nexample: npm run bench:verdict-cache -- --records 1000 --entries 5000";
const values = benchArgs("bench:verdict-cache", USAGE, {
  records: { type: "string", default: "5000" },
  entries: { type: "string", default: "20000" },
  concurrency: { type: "string", default: "16" },
  dir: { type: "string", default: tmpdir() },
});
const positive = (name: string, text: string): number => positiveIntegerArg("bench:verdict-cache", name, text);
const records = positive("records", values.records);
const count = positive("entries", values.entries);
const concurrency = positive("concurrency", values.concurrency);

const IDENTITY: CanaryIdentity = {
  identity_format: 1,
  scope: "ingest_segment",
  mode: "block",
  provider: "ollama",
  model: "qwen2.5:1.5b",
  model_digest: "a".repeat(64),
  system_prompt_sha256: "b".repeat(64),
  num_ctx: 8192,
  temperature: 0,
  seed: 42,
  num_predict: 256,
  analysis: { method: "regex", version: 1, block_threshold: 0.6 },
  structural: { enabled: true, rules_version: 1, custom_patterns_sha256: null, skip_canary_after_block: true },
  windows: { max_input_length: 3500, segment_overlap: 500, max_segments: 64 },
  on_degraded: "fail_open",
};

function timed(run: () => void): number {
  const t0 = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - t0) / 1e9;
}

/** A verdict-sized value (~1.5 KB of JSON, two layers with long details) with its own token count. */
function segmentValue(i: number): Record<string, unknown> {
  const layers = Array.from({ length: 2 }, (_, n) => ({ name: `layer${n}`, passed: true, latency: 0.01, details: "x".repeat(300), signals: [] }));
  return { verdict: { safe: true, degraded: false, layers, summary: "Input passed all enabled security layers" }, prompt_eval_count: 300 + (i % 50) };
}

/** Part 1: a cold ingest with --cache, and the file's bytes per cached segment. */
async function bytesPerSegment(dir: string): Promise<{ perSegment: number; segments: number; recordEntries: number; fileBytes: number }> {
  const input = join(dir, "records.jsonl");
  await writeGeneratedCorpus(input, records);
  const cache = join(dir, "ingest.sqlite");
  const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign", contextLength: 32768 });
  try {
    const run = await runCliMeasured(benchIngestArgs(input, join(dir, "manifest.json"), standIn.url, concurrency, ["--cache", cache]));
    if (run.exitCode !== 0) throw new Error(`bench:verdict-cache: the ingest exited ${run.exitCode}\n${run.stderr.slice(-2000)}`);
  } finally {
    await standIn.close();
  }
  // The run has closed the file: its write-ahead log is checkpointed into it and removed.
  const stats = cacheStats({ cache });
  if (stats.entries === 0) throw new Error("bench:verdict-cache: the ingest cached no segment");
  return { perSegment: stats.size_bytes / stats.entries, segments: stats.entries, recordEntries: stats.record_entries, fileBytes: stats.size_bytes };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(values.dir, "lc-bench-cache-"));
  try {
    const size = await bytesPerSegment(dir);
    const met = size.perSegment <= MAX_BYTES_PER_SEGMENT;
    console.log(
      `cache on disk after a cold ingest of ${records} records (stand-in at 0 ms, concurrency ${concurrency}): ${size.fileBytes} bytes, ` +
        `${size.segments} cached segments, ${size.recordEntries} record entries: ${size.perSegment.toFixed(0)} bytes per cached segment ` +
        `(target <= ${MAX_BYTES_PER_SEGMENT}: ${met ? "met" : "NOT met"})`,
    );

    const path = join(dir, "cache.sqlite");
    const identity = cacheIdentity(IDENTITY);
    const texts = Array.from({ length: count }, (_, i) => sha256Hex(`segment ${i}`));
    const misses = Array.from({ length: count }, (_, i) => sha256Hex(`other ${i}`));
    let peakRss = process.memoryUsage().rss;
    const cache = VerdictCache.open(path);
    let hits = 0;
    try {
      const putS = timed(() => {
        for (let i = 0; i < count; i++) {
          cache.put({ textSha256: texts[i] as string, identity, state: "pass", exercised: true, value: segmentValue(i) });
          if (i % 5000 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
        }
      });
      const hitS = timed(() => {
        for (const text of texts) if (cache.get(text, identity.key) !== null) hits++;
      });
      const missS = timed(() => {
        for (const text of misses) if (cache.get(text, identity.key) !== null) hits = -1;
      });
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const fileMb = cache.stats().size_bytes / 1e6;
      console.log(`verdict cache: ${count} puts in ${putS.toFixed(2)} s, ${hits} hits in ${hitS.toFixed(2)} s, ${count} misses in ${missS.toFixed(2)} s`);
      console.log(
        `bytes_per_cached_segment=${size.perSegment.toFixed(0)} cache_puts_per_s=${Math.round(count / putS)} cache_hits_per_s=${Math.round(count / hitS)} ` +
          `cache_misses_per_s=${Math.round(count / missS)} peak_rss_mb=${(peakRss / 1048576).toFixed(1)} file_mb=${fileMb.toFixed(1)} target_met=${met ? "yes" : "no"}`,
      );
      if (hits !== count || !met) process.exitCode = 1;
    } finally {
      cache.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
