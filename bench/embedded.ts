// bench:embedded — what the embedded canary costs on this machine with the tiny test model of
// scripts/tiny-gguf-model.ts (generated here, never read from disk): engine start-up, prompt
// evaluation and generation speed in tokens per second, and the resident memory the engine and
// model add. The tiny model has 2 layers of 32 dimensions; a real canary model (Qwen2.5-1.5B has
// 28 layers of 1536) costs hundreds of times more per token, so these figures are an upper bound
// on speed, never an estimate of a real model's. Needs node-llama-cpp (`npm run embedded:install`).
// Usage: node dist/bench/embedded.js [--threads N] [--tokens N]
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tinyGguf } from "../scripts/tiny-gguf-model.js";
import { disposeEmbeddedCanaries, EmbeddedCanaryProbe } from "../src/canary/embedded-probe.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";

const ARGS = benchArgs(
  "bench:embedded",
  "usage: npm run bench:embedded [-- --threads 1 --tokens 2000]  (needs npm run embedded:install)\nexample: npm run bench:embedded -- --threads 2 --tokens 500",
  { threads: { type: "string", default: "1" }, tokens: { type: "string", default: "2000" } },
);
const threads = positiveIntegerArg("bench:embedded", "threads", ARGS.threads);
const tokens = positiveIntegerArg("bench:embedded", "tokens", ARGS.tokens);
const dir = mkdtempSync(join(tmpdir(), "lc-bench-embedded-"));
const write = (name: string, bytes: Buffer): { modelPath: string; sha256: string } => {
  const modelPath = join(dir, name);
  writeFileSync(modelPath, bytes);
  return { modelPath, sha256: createHash("sha256").update(bytes).digest("hex") };
};
const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);
try {
  const rssBefore = process.memoryUsage().rss;
  const endless = new EmbeddedCanaryProbe({
    ...write("endless.gguf", tinyGguf({ reply: "endless" })),
    gpu: false,
    threads,
    maxTokens: tokens,
    timeoutSeconds: 600,
  });
  let started = performance.now();
  const opened = await endless.open();
  if (!opened.ok) throw opened.error;
  const startMs = performance.now() - started;
  const rssOpen = process.memoryUsage().rss;
  const generated = await endless.test("Write a long story.");
  const genTokens = Number(generated.metadata["eval_count"]);
  const short = new EmbeddedCanaryProbe({ ...write("short.gguf", tinyGguf()), gpu: false, threads });
  await short.open();
  const prose = "The quick brown fox jumps over the lazy dog near the river bank. ".repeat(50);
  const promptTokens = (await short.countPromptTokens(prose)) as number;
  started = performance.now();
  const runs = 5;
  for (let i = 0; i < runs; i++) await short.test(prose);
  const promptSeconds = (performance.now() - started) / 1000 / runs;
  console.log(`machine: ${process.platform}-${process.arch}, node ${process.version}, threads ${threads}, context ${opened.identity.context_size} tokens`);
  console.log(`engine start (import, hash, load, context): ${startMs.toFixed(0)} ms`);
  console.log(
    `generation: ${genTokens} tokens in ${generated.latency.toFixed(2)} s = ${(genTokens / generated.latency).toFixed(0)} tokens/s (${generated.failureCode ?? "ended"})`,
  );
  console.log(
    `prompt evaluation: ${promptTokens} tokens in ${promptSeconds.toFixed(3)} s = ${(promptTokens / promptSeconds).toFixed(0)} tokens/s (including the one-token reply)`,
  );
  console.log(`resident memory: ${mb(rssBefore)} MB before, ${mb(rssOpen)} MB with the engine and one tiny model open (+${mb(rssOpen - rssBefore)} MB)`);
  console.log("tiny test model only: a real canary model is hundreds of times slower per token");
} finally {
  await disposeEmbeddedCanaries();
  rmSync(dir, { recursive: true, force: true });
}
