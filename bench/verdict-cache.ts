// Benchmark for the verdict cache (`node dist/bench/verdict-cache.js [--entries N] [--dir DIR]`,
// after `npm run build`): N puts (each its own committed transaction, as in a run), then N hits
// and N misses by get, with a verdict-sized value (~1.5 KB of JSON). Prints puts/s, gets/s and
// peak RSS; the last line is machine-readable:
// `cache_puts_per_s=… cache_hits_per_s=… cache_misses_per_s=… peak_rss_mb=… file_mb=…`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cacheIdentity, type CanaryIdentity } from "../src/cache/identity.js";
import { VerdictCache } from "../src/cache/verdict-cache.js";
import { sha256Hex } from "../src/core/hash.js";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? (process.argv[at + 1] as string) : fallback;
}

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

function main(): void {
  const count = Number(flag("--entries", "100000"));
  if (!Number.isSafeInteger(count) || count < 1) throw new Error("--entries must be a positive integer");
  const dir = mkdtempSync(join(flag("--dir", tmpdir()), "lc-bench-cache-"));
  const path = join(dir, "cache.sqlite");
  const identity = cacheIdentity(IDENTITY);
  const texts = Array.from({ length: count }, (_, i) => sha256Hex(`segment ${i}`));
  const misses = Array.from({ length: count }, (_, i) => sha256Hex(`other ${i}`));
  const layers = Array.from({ length: 2 }, (_, i) => ({ name: `layer${i}`, passed: true, latency: 0.01, details: "x".repeat(300), signals: [] }));
  let peakRss = process.memoryUsage().rss;
  const cache = VerdictCache.open(path);
  let hits = 0;
  try {
    const putS = timed(() => {
      for (let i = 0; i < count; i++) {
        const value = {
          verdict: { safe: true, degraded: false, layers, summary: "Input passed all enabled security layers" },
          prompt_eval_count: 300 + (i % 50),
        };
        cache.put({ textSha256: texts[i] as string, identity, state: "pass", exercised: true, value });
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
      `cache_puts_per_s=${Math.round(count / putS)} cache_hits_per_s=${Math.round(count / hitS)} cache_misses_per_s=${Math.round(count / missS)} peak_rss_mb=${(peakRss / 1048576).toFixed(1)} file_mb=${fileMb.toFixed(1)}`,
    );
    if (hits !== count) process.exitCode = 1;
  } finally {
    cache.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
