// bench:overhead — the CPU little-canary spends per check on the check path alone
// (SecurityPipeline.check, no ingest and no manifest), at concurrency 1 against the bench
// stand-in answering at once (0 ms). The stand-in runs in a child process, so its own work is
// not this process's CPU; what is left per check is the pipeline's (structural filter, request
// building, HTTP exchange on this side, reply checks, analysis, verdict) plus one loopback round
// trip. Texts are segment-sized prose (200 to 3,500 characters, the strict/v1 segment budget),
// generated deterministically. Prints one line per trial, a breakdown, then:
//   overhead_ms_per_check=… cpu_ms_per_check=… target_ms=1.0 target_met=yes|no
// and last the issue-28 target on this process's CPU per check (what sets how fast one thread
// can feed a fast canary):
//   cpu_ms_per_check=… target_cpu_ms=0.7 target_met=yes|no
// `overhead_ms_per_check` is wall time per check (median of BENCH_OVERHEAD_TRIALS, default 5);
// `cpu_ms_per_check` is this process's user+system CPU per check over the same trials.
// The breakdown times parts of the path on their own (structural filter, analysis of the
// stand-in's reply, a bare library HTTP exchange to the stand-in with the same body); the rest
// is request and reply handling, verdict building and scheduling. Stand-in figures are not
// model figures. Exit status 1 when the target is missed. With --write-doc the printed lines
// replace this benchmark's section of docs/performance.md.
import { httpCall } from "../src/canary/http-call.js";
import { ollamaChatBody } from "../src/canary/chat-exchange.js";
import type { CanaryResult } from "../src/canary/types.js";
import { BehavioralAnalyzer } from "../src/analysis/behavioral.js";
import { SecurityPipeline } from "../src/pipeline/pipeline.js";
import { machineLine, recordPrintedLines, writeSection } from "./_perf-doc.js";
import { STAND_IN_MODEL, startBenchStandIn } from "./_standin.js";
import { median } from "./_stats.js";
import { PLAIN_WORDS, seededRandom } from "./_random.js";

const TRIALS = Number(process.env.BENCH_OVERHEAD_TRIALS ?? "5");
const CHECKS_PER_TRIAL = Number(process.env.BENCH_OVERHEAD_CHECKS ?? "500");
/**
 * Unmeasured checks first: the JIT keeps optimising the path for about the first 1,500 checks
 * (trials after 300 ran 1.5× slower than later ones), and the figure describes sustained work.
 */
const WARMUP_CHECKS = 2000;
const NUM_CTX = 16384;
const TARGET_MS = 1.0;
/** Issue 28: at most this much of this process's CPU per check. */
const TARGET_CPU_MS = 0.7;
/** The stand-in's benign reply (bench/_standin.ts), analysed on its own for the breakdown. */
const STAND_IN_REPLY = "Hello! How can I help you today?";

const WORDS = PLAIN_WORDS;

const prng = seededRandom;

/** Segment-sized prose: half short (200–800 characters), half up to the 3,500-character budget. */
function texts(count: number, seed: number): string[] {
  const random = prng(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const chars = random() < 0.5 ? 200 + Math.floor(random() * 600) : 800 + Math.floor(random() * 2700);
    const parts: string[] = [];
    let size = 0;
    while (size < chars) {
      const sentence = Array.from({ length: 6 + Math.floor(random() * 8) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
      const text = `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}. `;
      parts.push(text);
      size += text.length;
    }
    out.push(parts.join("").slice(0, chars).trimEnd());
  }
  return out;
}

interface Trial {
  readonly wallMs: number;
  readonly cpuMs: number;
}

async function timeLoop(count: number, body: (i: number) => Promise<unknown> | unknown): Promise<Trial> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) await body(i);
  const wallMs = (performance.now() - t0) / count;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 / count };
}

async function main(): Promise<void> {
  if (!Number.isSafeInteger(TRIALS) || TRIALS < 1) throw new RangeError("BENCH_OVERHEAD_TRIALS must be a positive integer");
  if (!Number.isSafeInteger(CHECKS_PER_TRIAL) || CHECKS_PER_TRIAL < 1) throw new RangeError("BENCH_OVERHEAD_CHECKS must be a positive integer");
  const set = texts(CHECKS_PER_TRIAL, 11);
  const printed = recordPrintedLines();
  const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign" });
  try {
    // A gated pipeline as ingest builds it: the first check runs the context proof (warm-up chat
    // and /api/ps), every later one checks its reply against that proof.
    const pipeline = new SecurityPipeline({ ollamaUrl: standIn.url, canaryModel: STAND_IN_MODEL, canaryNumCtx: NUM_CTX, canaryTimeout: 30 });
    const checkOnce = async (text: string): Promise<void> => {
      const verdict = await pipeline.check(text);
      // Anything but an exercised pass means the stand-in or the texts misbehaved, and the
      // figure would not measure the path it claims to.
      if (!verdict.safe || !verdict.exercised) throw new Error(`unexpected verdict: ${verdict.summary}`);
    };
    // Warm-up, not measured: the JIT optimises the path and the keep-alive socket is open.
    for (let i = 0; i < WARMUP_CHECKS; i++) await checkOnce(set[i % set.length] as string);

    const trials: Trial[] = [];
    for (let trial = 1; trial <= TRIALS; trial++) {
      const m = await timeLoop(set.length, (i) => checkOnce(set[i] as string));
      trials.push(m);
      console.log(`trial=${trial} checks=${set.length} ms_per_check=${m.wallMs.toFixed(3)} cpu_ms_per_check=${m.cpuMs.toFixed(3)}`);
    }
    const wall = median(trials.map((t) => t.wallMs));
    const cpu = median(trials.map((t) => t.cpuMs));

    // Breakdown: each part on its own, over the same texts.
    const structural = await timeLoop(set.length, (i) => pipeline.structuralFilter.check(set[i] as string));
    const analyzer = new BehavioralAnalyzer({ systemPrompt: pipeline.systemPrompt });
    const reply: CanaryResult = { response: STAND_IN_REPLY, latency: 0, model: STAND_IN_MODEL, success: true, error: null, failureCode: null, metadata: {} };
    const analysis = await timeLoop(set.length, (i) => analyzer.analyze(set[i] as string, reply));
    const exchangeOnce = (text: string) =>
      httpCall(globalThis.fetch, `${standIn.url}/api/chat`, {
        method: "POST",
        json: ollamaChatBody({
          model: STAND_IN_MODEL,
          systemPrompt: pipeline.systemPrompt,
          userContent: text,
          maxTokens: 256,
          temperature: 0,
          seed: 42,
          numCtx: NUM_CTX,
        }),
        timeoutMs: 30_000,
        maxBodyBytes: 4 * 1024 * 1024,
      });
    for (let i = 0; i < 100; i++) await exchangeOnce(set[i % set.length] as string);
    const exchange = await timeLoop(set.length, (i) => exchangeOnce(set[i] as string));
    const rest = wall - structural.wallMs - analysis.wallMs - exchange.wallMs;
    console.log(
      `breakdown_ms_per_check structural=${structural.wallMs.toFixed(3)} analysis=${analysis.wallMs.toFixed(3)} ` +
        `http_exchange=${exchange.wallMs.toFixed(3)} rest=${rest.toFixed(3)}`,
    );
    console.log(
      `breakdown_cpu_ms_per_check structural=${structural.cpuMs.toFixed(3)} analysis=${analysis.cpuMs.toFixed(3)} ` +
        `http_exchange=${exchange.cpuMs.toFixed(3)} rest=${(cpu - structural.cpuMs - analysis.cpuMs - exchange.cpuMs).toFixed(3)}`,
    );
    const met = wall <= TARGET_MS;
    const cpuMet = cpu <= TARGET_CPU_MS;
    console.log(
      `overhead_ms_per_check=${wall.toFixed(3)} cpu_ms_per_check=${cpu.toFixed(3)} target_ms=${TARGET_MS.toFixed(1)} target_met=${met ? "yes" : "no"}`,
    );
    console.log(`cpu_ms_per_check=${cpu.toFixed(3)} target_cpu_ms=${TARGET_CPU_MS.toFixed(1)} target_met=${cpuMet ? "yes" : "no"}`);
    writeSection(
      "overhead",
      [
        "## bench:overhead — the check path's own cost per check",
        "",
        `Stand-in figures, not model figures. Machine: ${machineLine()}. Generated ${new Date().toISOString().slice(0, 10)}.`,
        "",
        `SecurityPipeline.check alone (no ingest, no manifest), concurrency 1, a gated pipeline (canaryNumCtx ${NUM_CTX}) against the ` +
          `stand-in answering at once (0 ms, in a child process); ${set.length} segment-sized prose texts (200–3,500 characters) per trial, ` +
          `${TRIALS} trials after ${WARMUP_CHECKS} unmeasured checks; the figure is the median trial's wall time per check. ` +
          "The breakdown times each part alone over the same texts (the HTTP exchange is the library's own call to the stand-in with " +
          "the same body, so it includes the responder's time); `rest` is what is left of the median: request and reply handling, " +
          "verdict building and the event loop.",
        "",
        `Targets: overhead_ms_per_check ≤ ${TARGET_MS.toFixed(1)}; cpu_ms_per_check ≤ ${TARGET_CPU_MS.toFixed(1)} (issue 28).`,
        "",
        "```",
        ...printed,
        "```",
      ].join("\n"),
    );
    if (!met || !cpuMet) process.exitCode = 1;
  } finally {
    await standIn.close();
  }
}

main().catch((error: unknown) => {
  console.error(`bench:overhead failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
