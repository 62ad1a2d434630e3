// bench:ingest — library ingest throughput against the bench stand-in canary at a fixed latency L
// (default 20 ms; BENCH_INGEST_LATENCY_MS overrides), at concurrency 1, 4 and 16. For each it
// prints records/s, checks/s and the ratio of checks/s to the ideal `concurrency / L` (each level
// run BENCH_INGEST_TRIALS times, default 3, and summarised by the median); then the
// pipeline's own overhead per check with the stand-in answering at once, and peak RSS. Last line:
//   c1_ratio=… c4_ratio=… c16_ratio=… overhead_ms_per_check=… peak_rss_mb=…
// The pipeline is a real, gated SecurityPipeline (canaryNumCtx 16384, stand-in context 32768), so
// the context gate runs as it would in production. Stand-in figures are not model figures.
import { ingestRecords, type IngestInput } from "../src/ingest/run.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import { machineLine, writeSection } from "./_perf-doc.js";
import { STAND_IN_MODEL, startBenchStandIn } from "./_standin.js";
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

main().catch((error: unknown) => {
  console.error(`bench:ingest failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
