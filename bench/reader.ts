// Benchmark for the strict JSONL reader (`npm run bench:reader`, run with --expose-gc).
//
// 1. Memory: refuses a single 256 MiB line produced by an async generator (never held in
//    memory) and samples RSS on every chunk; the peak must stay under 64 MiB above the baseline
//    taken right before, because the reader refuses a line once it passes the per-line cap.
// 2. Throughput: reads a generated ~64 MiB JSONL from memory with raised limits, three times,
//    and reports the median in MB/s (10^6 bytes of input per second) by wall clock, plus the
//    same per CPU second, since these machines are shared and wall time depends on the load.
// The last line is machine-readable: `reader_mb_per_s=… refuse_256mib_peak_rss_delta_mb=…`.
// A failed expectation sets process.exitCode = 1.

import os from "node:os";
import { maxLineBytes, type ReaderLimits } from "../src/documents/reader-limits.js";
import { READ_CHUNK_BYTES } from "../src/jsonl/sources.js";
import { recordBench, recordPrintedLines } from "./_perf-doc.js";
import { median } from "./_stats.js";
import { seededRandom } from "./_random.js";
import { readRecords, fromBytes } from "../test/support/jsonl-reads.js";

const MIB = 1024 * 1024;
const INPUT_BYTES = 64 * MIB;
const HUGE_LINE_BYTES = 256 * MIB;
const RSS_BUDGET_MB = 64;

// Raised so the 64 MiB input is accepted; item bytes raised too, so the refusal run buffers a
// sizeable (~24 MiB) line before refusing rather than a trivially small one.
const LIMITS: ReaderLimits = {
  maxItems: 10_000_000,
  maxItemBytes: 4 * MIB,
  maxTotalBytes: 1024 * MIB,
  maxMetadataKeys: 32,
  maxMetadataValueChars: 1024,
};

const gc = (globalThis as { gc?: () => void }).gc;

function collectGarbage(): void {
  if (gc !== undefined) {
    gc();
    gc();
  }
}

const random = seededRandom;

const WORDS = ["ignore", "previous", "instructions", "quarterly", "report", "caf\u00e9", "na\u00efve", "\u65e5\u672c", "\u{1f600}", "data", "the", "a"];

function generateInput(): Buffer {
  const next = random(42);
  const parts: Buffer[] = [];
  let size = 0;
  for (let i = 0; size < INPUT_BYTES; i++) {
    const words: string[] = [];
    const count = 5 + Math.floor(next() * 300);
    for (let w = 0; w < count; w++) words.push(WORDS[Math.floor(next() * WORDS.length)] ?? "x");
    const record =
      i % 5 === 0
        ? { text: words.join(" "), id: `rec-${i}`, source: "bench", metadata: { title: `t${i}`, lang: "en" } }
        : i % 5 === 1
          ? words.join('\n\t"quoted" ')
          : { text: words.join(" "), id: `rec-${i}`, source: null };
    const line = Buffer.from(`${JSON.stringify(record)}\n`);
    parts.push(line);
    size += line.length;
  }
  return Buffer.concat(parts);
}

async function measureRefusal(): Promise<{ deltaMb: number; baselineMb: number; code: string; pulledBytes: number }> {
  collectGarbage();
  const baseline = process.memoryUsage.rss();
  let peak = baseline;
  let pulled = 0;
  async function* hugeLine(): AsyncGenerator<Uint8Array> {
    const head = Buffer.from('{"text":"');
    yield head;
    pulled += head.length;
    while (pulled < HUGE_LINE_BYTES) {
      // A fresh chunk each time, like a file read, so garbage is part of the measurement.
      const chunk = Buffer.alloc(Math.min(READ_CHUNK_BYTES, HUGE_LINE_BYTES - pulled), 0x61);
      pulled += chunk.length;
      peak = Math.max(peak, process.memoryUsage.rss());
      yield chunk;
    }
    yield Buffer.from('"}\n');
  }
  const outcome = await readRecords(hugeLine(), { kind: "ingest", limits: LIMITS });
  peak = Math.max(peak, process.memoryUsage.rss());
  return {
    deltaMb: (peak - baseline) / MIB,
    baselineMb: baseline / MIB,
    code: outcome.ok ? "accepted" : outcome.refusal.code,
    pulledBytes: pulled,
  };
}

interface Throughput {
  /** Median over the runs, by wall-clock time. */
  mbPerSecond: number;
  /** Median over the runs, by CPU time of the process (less sensitive to a busy machine). */
  cpuMbPerSecond: number;
  records: number;
}

async function measureThroughput(input: Buffer): Promise<Throughput> {
  const wall: number[] = [];
  const cpu: number[] = [];
  let records = 0;
  for (let run = 0; run < 3; run++) {
    collectGarbage();
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    const outcome = await readRecords(fromBytes(input), { kind: "ingest", limits: LIMITS });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const used = process.cpuUsage(cpuStart);
    if (!outcome.ok) throw new Error(`benchmark input was refused: ${outcome.refusal.message}`);
    records = outcome.records.length;
    wall.push(input.length / 1e6 / seconds);
    cpu.push(input.length / 1e6 / ((used.user + used.system) / 1e6));
  }
  return { mbPerSecond: median(wall), cpuMbPerSecond: median(cpu), records };
}

/** Every line this run prints, for docs/performance.md. */
const printed = recordPrintedLines();

async function main(): Promise<void> {
  if (gc === undefined) console.log("warning: run with node --expose-gc for a stable RSS baseline");
  const cap = maxLineBytes(LIMITS);

  const refusal = await measureRefusal();
  console.log(
    `refusal: one ${HUGE_LINE_BYTES / MIB} MiB line, per-line cap ${cap} bytes: ${refusal.code} after pulling ` +
      `${refusal.pulledBytes} bytes; RSS baseline ${refusal.baselineMb.toFixed(1)} MiB, peak +${refusal.deltaMb.toFixed(1)} MiB`,
  );

  const input = generateInput();
  const throughput = await measureThroughput(input);
  console.log(
    `throughput: ${input.length} bytes, ${throughput.records} records, kind ingest, median of 3 runs: ` +
      `${throughput.mbPerSecond.toFixed(1)} MB/s wall clock, ${throughput.cpuMbPerSecond.toFixed(1)} MB/s per CPU second ` +
      `(load average ${os.loadavg()[0]?.toFixed(1)} on ${os.availableParallelism()} cores)`,
  );

  if (refusal.code !== "line_too_long") {
    console.log(`FAIL: expected line_too_long, got ${refusal.code}`);
    process.exitCode = 1;
  }
  if (refusal.deltaMb >= RSS_BUDGET_MB) {
    console.log(`FAIL: peak RSS delta ${refusal.deltaMb.toFixed(1)} MiB is not under ${RSS_BUDGET_MB} MiB`);
    process.exitCode = 1;
  }
  console.log(`reader_mb_per_s=${throughput.mbPerSecond.toFixed(1)} refuse_256mib_peak_rss_delta_mb=${refusal.deltaMb.toFixed(1)}`);
  recordBench(
    "reader",
    "strict JSONL reader",
    "Throughput of the strict reader (kind ingest, raised limits) over a generated 64 MiB JSONL, and the peak RSS above the process baseline while it refuses a single 256 MiB line (the per-line cap must refuse it before it is held; budget: under 64 MiB).",
    printed,
  );
}

await main();
