// bench:ingest — library ingest throughput against the bench stand-in canary at a fixed latency L
// (default 20 ms; BENCH_INGEST_LATENCY_MS overrides), at concurrency 1, 4 and 16. For each it
// prints records/s, checks/s and the ratio of checks/s to the ideal `concurrency / L` (each level
// run BENCH_INGEST_TRIALS times, default 3, and summarised by the median); then the
// pipeline's own overhead per check with the stand-in answering at once, and peak RSS. Last line:
//   c1_ratio=… c4_ratio=… c16_ratio=… overhead_ms_per_check=… peak_rss_mb=…
// The pipeline is a real, gated SecurityPipeline (canaryNumCtx 16384, stand-in context 32768), so
// the context gate runs as it would in production. Stand-in figures are not model figures.
//
// `--throughput` (issue 28: a client that keeps up with a GPU) measures instead the built CLI's
// `ingest` in a child process against the stand-in answering at once (0 ms) in another, at
// `--concurrency` (default 32) over `--records` generated records (default 5000, the corpus of
// bench:scale), BENCH_INGEST_TRIALS times. Per trial it prints checks/s and each process's CPU
// (user + system, as a share of one core and per check); last line:
//   throughput_checks_per_s=… target_checks_per_s=800 target_met=yes|no
// (the median trial; exit status 1 when missed). Needs `npm run build` and /usr/bin/time.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { positiveIntegerArg } from "./_args.js";
import { writeGeneratedCorpus } from "./_generated-corpus.js";
import { ingestRecords, type IngestInput } from "../src/ingest/run.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import { machineLine, writeSection } from "./_perf-doc.js";
import { benchIngestArgs, STAND_IN_MODEL, startBenchStandIn } from "./_standin.js";
import { median } from "./_stats.js";
import { PLAIN_WORDS, seededRandom } from "./_random.js";

const LATENCY_MS = Number(process.env.BENCH_INGEST_LATENCY_MS ?? "20");
/**
 * Runs per concurrency level; each level's ratio is the median. On a shared 2-core machine one
 * run can vary by a few hundredths with the host's load; every run is printed.
 */
const TRIALS = Number(process.env.BENCH_INGEST_TRIALS ?? "3");
const NUM_CTX = 16384;
/**
 * Target checks per concurrency level: enough that the run start (gate) and the slowest record's
 * tail stay small beside the sustained rate, about six seconds of work at each level.
 */
const CHECKS_TARGET: Readonly<Record<number, number>> = { 1: 300, 4: 1200, 16: 4800 };
const OVERHEAD_CHECKS = 400;
/** The issue's target: at L = 20 ms, concurrency 16 reaches at least 0.8 of the ideal rate. */
const TARGET_C16_RATIO = 0.8;
const POLICY = { max_items: 10_000, max_total_bytes: 64 * 1024 * 1024 };

const WORDS = PLAIN_WORDS;

const prng = seededRandom;

function prose(random: () => number, bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentence = Array.from({ length: 6 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
    const text = `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. `;
    parts.push(text);
    size += text.length;
  }
  return parts.join("").slice(0, bytes).trimEnd();
}

/** Mixed sizes up to 64 KiB: mostly short, some multi-segment, a few over the segment budget. */
function generate(count: number, seed: number): IngestInput[] {
  const random = prng(seed);
  const records: IngestInput[] = [];
  for (let i = 0; i < count; i++) {
    const roll = random();
    const bytes =
      roll < 0.5
        ? 200 + Math.floor(random() * 600)
        : roll < 0.8
          ? 1024 + Math.floor(random() * 2048)
          : roll < 0.95
            ? 4096 + Math.floor(random() * 8192)
            : roll < 0.99
              ? 16384 + Math.floor(random() * 4096)
              : 65536;
    const text = prose(random, bytes);
    records.push(
      random() < 0.3 ? { text, id: `r${i}`, source: "bench", metadata: { lang: "en", topic: WORDS[i % WORDS.length] as string } } : { text, id: `r${i}` },
    );
  }
  return records;
}

interface Measured {
  readonly records: number;
  readonly checks: number;
  readonly seconds: number;
}

async function measure(url: string, records: readonly IngestInput[], concurrency: number): Promise<Measured> {
  const pipeline = new SecurityPipeline({ ollamaUrl: url, canaryModel: STAND_IN_MODEL, canaryNumCtx: NUM_CTX, canaryTimeout: 30 });
  const started = performance.now();
  const run = await ingestRecords(pipeline, { inputs: records }, { concurrency, policy: POLICY });
  const seconds = (performance.now() - started) / 1000;
  if (!run.gate.verified) throw new Error("the context gate did not verify the stand-in canary");
  // Only over-budget holds are expected (they take no checks); anything else means the stand-in
  // or the text generator misbehaved and the figures would not measure what they claim.
  const unexpected = Object.entries(run.manifest.document.counts.by_reason).filter(([reason, n]) => reason !== "over_budget" && n > 0);
  if (unexpected.length > 0) throw new Error(`unexpected holds: ${unexpected.map(([r, n]) => `${r}=${n}`).join(" ")}`);
  return { records: records.length, checks: run.manifest.document.run.checks_performed, seconds };
}

/** Enough records (from one deterministic stream) for about `target` checks. */
function recordsFor(all: readonly IngestInput[], checksPerRecord: number, target: number): IngestInput[] {
  return all.slice(0, Math.min(all.length, Math.ceil(target / checksPerRecord)));
}

/**
 * The transport floor: the same number of bare `fetch` POSTs to the stand-in's /api/chat at the
 * same latency and concurrency, with a segment-sized body and no screening at all. The ingest
 * ratio cannot exceed this; the gap between the two is little-canary's own cost.
 */
async function transportFloor(url: string, concurrency: number, requests: number): Promise<number> {
  const body = JSON.stringify({
    model: STAND_IN_MODEL,
    messages: [{ role: "user", content: "river garden window ".repeat(175) }],
    stream: false,
    think: false,
    options: { num_predict: 256, temperature: 0, seed: 42, num_ctx: NUM_CTX },
  });
  const once = async (): Promise<void> => {
    const response = await fetch(`${url}/api/chat`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json" },
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
  };
  for (let i = 0; i < concurrency * 4; i++) await once();
  // Lanes, like the ingest scheduler: each starts its next request as soon as its last one ends.
  let remaining = requests;
  const lane = async (): Promise<void> => {
    while (remaining > 0) {
      remaining--;
      await once();
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, lane));
  const seconds = (performance.now() - started) / 1000;
  return requests / seconds / (concurrency / (LATENCY_MS / 1000));
}

async function main(): Promise<void> {
  if (!Number.isFinite(LATENCY_MS) || LATENCY_MS <= 0) throw new RangeError("BENCH_INGEST_LATENCY_MS must be > 0");
  if (!Number.isSafeInteger(TRIALS) || TRIALS < 1) throw new RangeError("BENCH_INGEST_TRIALS must be a positive integer");
  const all = generate(4000, 7);
  const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign" });
  const lines: string[] = [];
  const ratios: Record<number, number> = {};
  try {
    // Overhead first (stand-in answering at once), which also tells us checks per record.
    const probe = await measure(standIn.url, all.slice(0, 400), 1);
    const checksPerRecord = probe.checks / probe.records;
    // Warm-up, not measured: a sustained ingest is what the figures describe, so the JIT gets
    // to optimise the screening and HTTP paths first, and all 16 keep-alive sockets are open.
    await measure(standIn.url, recordsFor(all, checksPerRecord, CHECKS_TARGET[16] as number), 16);
    const overheadSet = recordsFor(all, checksPerRecord, OVERHEAD_CHECKS);
    const overhead = await measure(standIn.url, overheadSet, 1);
    const overheadMs = (overhead.seconds * 1000) / overhead.checks;

    await standIn.setLatency(LATENCY_MS);
    for (const concurrency of [1, 4, 16]) {
      const set = recordsFor(all, checksPerRecord, CHECKS_TARGET[concurrency] as number);
      const ideal = concurrency / (LATENCY_MS / 1000);
      const trialRatios: number[] = [];
      for (let trial = 1; trial <= TRIALS; trial++) {
        await standIn.takeServiceTimes();
        const m = await measure(standIn.url, set, concurrency);
        const served = await standIn.takeServiceTimes();
        const checksPerSecond = m.checks / m.seconds;
        trialRatios.push(checksPerSecond / ideal);
        // The stand-in's own achieved latency (arrival to reply written): the ideal assumes
        // exactly L, so this shows how much of any shortfall is the responder's, not ours.
        const line =
          `concurrency=${concurrency} trial=${trial} latency_ms=${LATENCY_MS} records=${m.records} checks=${m.checks} seconds=${m.seconds.toFixed(2)} ` +
          `records_per_s=${(m.records / m.seconds).toFixed(1)} checks_per_s=${checksPerSecond.toFixed(1)} ideal_checks_per_s=${ideal.toFixed(1)} ` +
          `ratio=${(checksPerSecond / ideal).toFixed(3)} standin_service_ms_mean=${served.meanMs.toFixed(2)} standin_service_ms_max=${served.maxMs.toFixed(1)}`;
        lines.push(line);
        console.log(line);
      }
      ratios[concurrency] = median(trialRatios);
      const summary = `concurrency=${concurrency} median_ratio=${ratios[concurrency].toFixed(3)} trials=${trialRatios.map((r) => r.toFixed(3)).join(",")}`;
      lines.push(summary);
      console.log(summary);
    }
    const floorRatios: number[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) floorRatios.push(await transportFloor(standIn.url, 16, 1600));
    const floor = median(floorRatios);
    const floorLine =
      `transport floor (bare fetch, no screening, concurrency 16, latency_ms=${LATENCY_MS}): median_ratio=${floor.toFixed(3)} ` +
      `trials=${floorRatios.map((r) => r.toFixed(3)).join(",")}`;
    lines.push(floorLine);
    console.log(floorLine);
    const overheadLine = `overhead (stand-in at 0 ms, concurrency 1): checks=${overhead.checks} ms_per_check=${overheadMs.toFixed(3)}`;
    console.log(overheadLine);
    const peakRssMb = process.resourceUsage().maxRSS / 1024;
    const final =
      `c1_ratio=${(ratios[1] ?? 0).toFixed(3)} c4_ratio=${(ratios[4] ?? 0).toFixed(3)} c16_ratio=${(ratios[16] ?? 0).toFixed(3)} ` +
      `overhead_ms_per_check=${overheadMs.toFixed(3)} peak_rss_mb=${peakRssMb.toFixed(1)}`;
    writeSection(
      "ingest",
      [
        "## bench:ingest — library ingest against the stand-in canary",
        "",
        `Stand-in figures, not model figures. Machine: ${machineLine()}. Generated ${new Date().toISOString().slice(0, 10)}.`,
        "",
        `Records: mixed sizes up to 64 KiB (half under 1 KiB, a few over the strict/v1 segment budget), 30% with metadata; ` +
          `a gated SecurityPipeline (canaryNumCtx ${NUM_CTX}); stand-in latency L = ${LATENCY_MS} ms per canary call; ` +
          "ideal rate = concurrency / L checks per second. Before the measured runs, one unmeasured ingest at concurrency 16 " +
          "warms the JIT and opens the keep-alive sockets (the figures describe a sustained ingest). The stand-in answers " +
          "L ms after a request arrives, to within 0.5 ms (millisecond timers); `standin_service_ms_mean` is what it " +
          "actually achieved, so a shortfall can be told apart from the responder's own lateness. " +
          "Peak RSS is the benchmark process (the stand-in runs in a child process).",
        "",
        `Target: c16_ratio ≥ ${TARGET_C16_RATIO} at L = 20 ms (ideal 800 checks/s, so at most 1.25 ms of single-thread CPU per check).`,
        "",
        "```",
        ...lines,
        overheadLine,
        final,
        "```",
        "",
        LATENCY_MS === 20
          ? `Result: target ${(ratios[16] ?? 0) >= TARGET_C16_RATIO ? "met" : "missed"} (c16_ratio ${(ratios[16] ?? 0).toFixed(3)}, ` +
            `median of ${TRIALS}). The transport floor line is the same traffic through Node's built-in fetch with no ` +
            "screening at all: no ingest can exceed it. What separates the two is the main thread's CPU per check " +
            "(structural filter, request and reply handling, analysis, manifest entry) and the time lanes spend waiting " +
            "for each other on that one thread, so the ratio moves with overhead_ms_per_check and with the host's load."
          : `Result: run at L = ${LATENCY_MS} ms; the target is defined for L = 20 ms.`,
      ].join("\n"),
    );
    console.log(final);
    const c16 = ratios[16] ?? 0;
    if (LATENCY_MS === 20 && c16 < TARGET_C16_RATIO) {
      console.error(
        `target missed: c16_ratio ${c16.toFixed(3)} < ${TARGET_C16_RATIO} (see overhead_ms_per_check: the ideal needs well under ${(LATENCY_MS / 16).toFixed(2)} ms of CPU per check)`,
      );
      process.exitCode = 1;
    }
  } finally {
    await standIn.close();
  }
}

/** The issue-28 target: ingest with a 0 ms canary in another process, at concurrency 32, on the 2-core machine. */
const TARGET_THROUGHPUT = 800;
const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** One CLI ingest under /usr/bin/time: wall seconds, its CPU seconds (user + system) and the checks it reported. */
function timedIngest(args: readonly string[]): Promise<{ seconds: number; cpuSeconds: number; checks: number }> {
  const started = performance.now();
  const child = spawn("/usr/bin/time", ["-f", "cpu_user_s=%U cpu_sys_s=%S", process.execPath, CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout = (stdout + chunk.toString("utf8")).slice(-65536);
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-65536);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      const seconds = (performance.now() - started) / 1000;
      const checks = Number(/checks performed: (\d+)/.exec(stdout)?.[1] ?? Number.NaN);
      const cpu = /cpu_user_s=([\d.]+) cpu_sys_s=([\d.]+)/.exec(stderr);
      if (code !== 0 || !Number.isFinite(checks) || cpu === null) {
        reject(new Error(`ingest exited ${String(code)}: ${stderr.slice(-2000)}`));
        return;
      }
      resolve({ seconds, cpuSeconds: Number(cpu[1]) + Number(cpu[2]), checks });
    });
  });
}

async function throughput(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    options: { throughput: { type: "boolean" }, records: { type: "string", default: "5000" }, concurrency: { type: "string", default: "32" } },
  });
  const records = positiveIntegerArg("bench:ingest", "records", values.records);
  const concurrency = positiveIntegerArg("bench:ingest", "concurrency", values.concurrency);
  if (!Number.isSafeInteger(TRIALS) || TRIALS < 1) throw new RangeError("BENCH_INGEST_TRIALS must be a positive integer");
  const dir = await mkdtemp(join(tmpdir(), "lc-bench-throughput-"));
  const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign" });
  try {
    const input = join(dir, "records.jsonl");
    await writeGeneratedCorpus(input, records);
    const rates: number[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      await standIn.takeServiceTimes();
      const run = await timedIngest(benchIngestArgs(input, join(dir, `manifest-${trial}.json`), standIn.url, concurrency));
      const served = await standIn.takeServiceTimes();
      const rate = run.checks / run.seconds;
      rates.push(rate);
      console.log(
        `trial=${trial} records=${records} concurrency=${concurrency} checks=${run.checks} seconds=${run.seconds.toFixed(2)} checks_per_s=${rate.toFixed(1)} ` +
          `ingest_cpu_pct=${((100 * run.cpuSeconds) / run.seconds).toFixed(0)} ingest_cpu_ms_per_check=${((1000 * run.cpuSeconds) / run.checks).toFixed(3)} ` +
          `standin_cpu_pct=${(served.cpuMs / 10 / run.seconds).toFixed(0)} standin_cpu_ms_per_check=${(served.cpuMs / run.checks).toFixed(3)}`,
      );
    }
    const rate = median(rates);
    console.log(`throughput_checks_per_s=${rate.toFixed(1)} target_checks_per_s=${TARGET_THROUGHPUT} target_met=${rate >= TARGET_THROUGHPUT ? "yes" : "no"}`);
    if (rate < TARGET_THROUGHPUT) process.exitCode = 1;
  } finally {
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const argv = process.argv.slice(2);
(argv.includes("--throughput") ? throughput(argv) : main()).catch((error: unknown) => {
  console.error(`bench:ingest failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
