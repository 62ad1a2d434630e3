// bench:pool: a pool of canary endpoints against one endpoint, through the CLI.
//
// Ingests the same generated records (one segment each) three times, in child processes:
//   1. one stand-in endpoint with 4 slots (`--canary-endpoint URL#4`);
//   2. four stand-in endpoints with 4 slots each;
//   3. four stand-in endpoints again, one of them shut down part-way through the run;
// every stand-in answering each chat after 50 ms, the run's --concurrency the pool's total slots.
// Prints the checking throughput of runs 1 and 2 and their ratio (target ≥ 3.5x), whether the
// two manifests are identical apart from timestamps and latencies, and for run 3 whether it
// completed with no record degraded. The checking throughput counts the checks per second from
// the first to the last attempt in the --endpoint-log (the pool's identity pinning and process
// start are printed separately, in the wall time).
//
//   npm run build && npm run bench:pool [-- --records 800 --latency 50 --slots 4 --endpoints 4 --keep DIR --write-doc]
//
// No model runs here: the stand-ins answer with fixed text after a fixed delay, so these figures
// measure little-canary's dispatch, not any model or serving engine.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchArgs, positiveIntegerArg } from "./_args.js";
import { recordBench, recordPrintedLines } from "./_perf-doc.js";
import { runCliMeasured, type ChildRun } from "./_child-run.js";
import { STAND_IN_MODEL, startBenchStandIn, type BenchStandIn } from "./_standin.js";

const TARGET_RATIO = 3.5;

const USAGE =
  "usage: npm run bench:pool [-- --records 800 --latency 50 --slots 4 --endpoints 4 --keep DIR --write-doc]\nexample: npm run bench:pool -- --records 400";
const values = benchArgs("bench:pool", USAGE, {
  records: { type: "string", default: "800" },
  latency: { type: "string", default: "50" },
  slots: { type: "string", default: "4" },
  endpoints: { type: "string", default: "4" },
  keep: { type: "string" },
  "write-doc": { type: "boolean" },
});
const positive = (name: string, text: string): number => positiveIntegerArg("bench:pool", name, text);
const records = positive("records", values.records);
const latencyMs = positive("latency", values.latency);
const slots = positive("slots", values.slots);
const endpointCount = positive("endpoints", values.endpoints);
if (endpointCount < 2) {
  console.error("bench:pool: --endpoints must be at least 2");
  process.exit(2);
}

interface PoolRun {
  readonly run: ChildRun;
  readonly manifest: ManifestDoc;
  readonly checks: number;
  readonly checkingSeconds: number;
  readonly retried: number;
  readonly takenOut: number;
}

interface ManifestDoc {
  readonly records: ReadonlyArray<{ readonly admission: string; readonly segments: ReadonlyArray<{ readonly state: string }> }>;
  readonly [key: string]: unknown;
}

/** The manifest without what may differ between runs of one input: timestamps and latencies. */
function apartFromTimes(manifest: ManifestDoc): string {
  return JSON.stringify(manifest, (key, value: unknown) => {
    if (key === "started_at" || key === "finished_at" || key === "checked_at" || key === "latency" || key === "total_latency") return undefined;
    // A verdict's summary quotes its latency.
    if (key === "summary" && typeof value === "string") return value.replace(/\(\d+\.\d+s\)/g, "(…s)");
    return value;
  });
}

async function writeInput(path: string): Promise<void> {
  const lines = Array.from({ length: records }, (_, i) =>
    JSON.stringify(`Benchmark note ${i}: the ferry left the harbour at dawn and the market opened late.`),
  );
  await writeFile(path, `${lines.join("\n")}\n`);
}

async function ingestThrough(dir: string, name: string, input: string, urls: readonly string[], during?: () => Promise<void>): Promise<PoolRun> {
  const manifestPath = join(dir, `${name}.manifest.json`);
  const logPath = join(dir, `${name}.endpoints.jsonl`);
  const args = [
    "ingest",
    input,
    "--manifest",
    manifestPath,
    "--canary-model",
    STAND_IN_MODEL,
    "--concurrency",
    String(slots * urls.length),
    "--endpoint-log",
    logPath,
    "--timeout",
    "10",
    ...urls.flatMap((url) => ["--canary-endpoint", `${url}#${slots}`]),
  ];
  const running = runCliMeasured(args);
  await during?.();
  const run = await running;
  if (run.exitCode !== 0) {
    console.error(`bench:pool: ingest ${name} exited ${run.exitCode}: ${run.stderr.trim().split("\n").slice(-3).join(" | ")}`);
    process.exit(1);
  }
  const manifest = JSON.parse(await readFile(manifestPath, "utf8")) as ManifestDoc;
  const attempts = (await readFile(logPath, "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { time: string; outcome: string; retried: boolean; taken_out: boolean; latency_ms: number });
  const ok = attempts.filter((a) => a.outcome === "ok");
  // Each line is written when its attempt ends: the phase starts one latency before the first.
  const ends = attempts.map((a) => Date.parse(a.time));
  const first = Math.min(...ends) - (attempts[0]?.latency_ms ?? 0);
  const checkingSeconds = Math.max(1e-3, (Math.max(...ends) - first) / 1000);
  return {
    run,
    manifest,
    checks: ok.length,
    checkingSeconds,
    retried: attempts.filter((a) => a.retried).length,
    takenOut: attempts.filter((a) => a.taken_out).length,
  };
}

function degraded(manifest: ManifestDoc): number {
  return manifest.records.filter((r) => r.admission !== "admitted" || r.segments.some((s) => s.state !== "pass")).length;
}

const printed = recordPrintedLines();
const dir = values.keep ?? (await mkdtemp(join(tmpdir(), "lc-bench-pool-")));
const standIns: BenchStandIn[] = [];
try {
  for (let i = 0; i < endpointCount; i++) standIns.push(await startBenchStandIn({ latencyMs, replies: "benign", contextLength: 32768 }));
  const input = join(dir, "input.jsonl");
  await writeInput(input);
  console.log(`bench:pool: ${records} records, stand-ins answering after ${latencyMs} ms, ${slots} slots per endpoint; no model runs here (stand-in figures)`);
  const urls = standIns.map((s) => s.url);
  const one = await ingestThrough(dir, "one", input, urls.slice(0, 1));
  const many = await ingestThrough(dir, "many", input, urls);
  const rate = (r: PoolRun): number => r.checks / r.checkingSeconds;
  const ratio = rate(many) / rate(one);
  console.log(`one_endpoint: checks=${one.checks} checks_per_s=${rate(one).toFixed(1)} wall_s=${one.run.seconds.toFixed(2)}`);
  console.log(`${endpointCount}_endpoints: checks=${many.checks} checks_per_s=${rate(many).toFixed(1)} wall_s=${many.run.seconds.toFixed(2)}`);
  const ratioMet = ratio >= TARGET_RATIO;
  console.log(`throughput_ratio=${ratio.toFixed(2)} target=${TARGET_RATIO} target_met=${ratioMet ? "yes" : "no"}`);
  const identical = apartFromTimes(one.manifest) === apartFromTimes(many.manifest);
  console.log(`manifest_identical_apart_from_timestamps_and_latencies=${identical ? "yes" : "no"} target_met=${identical ? "yes" : "no"}`);

  // Run 3: shut one endpoint down once it has served an eighth of its expected share.
  const victim = standIns[1] as BenchStandIn;
  await victim.takeServiceTimes();
  const share = Math.max(1, Math.floor(records / endpointCount / 8));
  const killDuring = async (): Promise<void> => {
    let served = 0;
    for (let waited = 0; served < share && waited < 60_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      served += (await victim.takeServiceTimes()).requests;
    }
    await victim.close();
  };
  const killed = await ingestThrough(dir, "killed", input, urls, killDuring);
  const bad = degraded(killed.manifest);
  const killedMet = bad === 0 && killed.manifest.records.length === records;
  console.log(
    `one_endpoint_killed: exit=${killed.run.exitCode} records=${killed.manifest.records.length} degraded=${bad} retried_attempts=${killed.retried} ` +
      `taken_out=${killed.takenOut} target_met=${killedMet ? "yes" : "no"}`,
  );
  console.log(`target_met=${ratioMet && identical && killedMet ? "yes" : "no"}`);
  recordBench(
    "pool",
    "a pool of canary endpoints against one endpoint",
    "The same records ingested through 1 and through 4 stand-in endpoints (50 ms per reply, 4 slots each, `--concurrency` the pool's total slots), " +
      "then through 4 with one shut down part-way. Checking throughput: checks per second between the first and the last attempt in the endpoint log. " +
      "Stand-in figures: no model ran.",
    printed,
  );
} finally {
  await Promise.all(standIns.map((s) => s.close()));
  if (values.keep === undefined) await rm(dir, { recursive: true, force: true });
}
