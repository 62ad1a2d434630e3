// bench:incremental: re-ingest with the verdict cache.
//
// 1. A cold run of N generated records (default 100,000) with `--cache`, against the stand-in
//    answering at once: every segment is checked and cached.
// 2. The same records again with the same cache: must make 0 canary calls, at >= 20 MB/s of input.
// 3. The records with 1% of them changed (the end of their text rewritten): must make calls for
//    exactly the segments that changed (computed here from the segment planner).
// 4. A fresh cache, a run killed with SIGKILL at a random point, then the same run again: the two
//    together repeat at most `concurrency` checks beyond what one complete run makes.
//
//   npm run build && npm run bench:incremental [-- --records 100000 --kill-records 20000 --concurrency 16 --seed 1]
//
// No model runs here: the stand-in answers every chat at once; the figures are the cache's and
// little-canary's own, not any model's.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { STRICT_V1 } from "../src/documents/policy.js";
import { planSegments } from "../src/documents/segment-plan.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";
import { runCliMeasured, type ChildRun } from "./_child-run.js";
import { generatedRecords, seeded, writeGeneratedCorpus } from "./_generated-corpus.js";
import { benchIngestArgs, startBenchStandIn, type BenchStandIn } from "./_standin.js";

const MIN_MB_PER_S = 20;

const USAGE =
  "usage: npm run bench:incremental [-- --records 100000 --kill-records 20000 --concurrency 16 --seed 1]\nexample: npm run bench:incremental -- --records 20000 --kill-records 5000";
const values = benchArgs("bench:incremental", USAGE, {
  records: { type: "string", default: "100000" },
  "kill-records": { type: "string", default: "20000" },
  concurrency: { type: "string", default: "16" },
  seed: { type: "string", default: "1" },
});
const positive = (name: string, text: string): number => positiveIntegerArg("bench:incremental", name, text);
const records = positive("records", values.records);
const killRecords = positive("kill-records", values["kill-records"]);
const concurrency = positive("concurrency", values.concurrency);
const random = seeded(positive("seed", values.seed));

function ingestArgs(input: string, manifest: string, url: string, cache: string): string[] {
  // A killed run's lock goes stale after 20 s; the resumed run waits for it.
  return benchIngestArgs(input, manifest, url, concurrency, ["--overwrite", "--cache", cache, "--wait-lock", "60"]);
}

async function run(what: string, args: string[], standIn: BenchStandIn): Promise<{ run: ChildRun; calls: number }> {
  await standIn.takeServiceTimes();
  const result = await runCliMeasured(args);
  if (![0, 1, 2].includes(result.exitCode)) {
    console.error(`bench:incremental: ${what} exited ${result.exitCode}\n${result.stderr.slice(-2000)}`);
    process.exit(1);
  }
  return { run: result, calls: (await standIn.takeServiceTimes()).requests };
}

/** Segments of the changed corpus that the unchanged one does not have, record by record. */
function changedSegments(count: number, changedEvery: number): number {
  const before = generatedRecords(count);
  let changed = 0;
  for (const after of generatedRecords(count, { changedEvery, changeSalt: "rewritten ending" })) {
    const old = before.next().value;
    if (!after.changed || old === undefined) continue;
    const snapshot = (r: typeof after.record) => ({ text: r.text, id: r.id, source: null, metadata: r.metadata ?? {} });
    const oldShas = new Set(planSegments(snapshot(old.record), STRICT_V1).segments.map((s) => s.sha256));
    changed += planSegments(snapshot(after.record), STRICT_V1).segments.filter((s) => !oldShas.has(s.sha256)).length;
  }
  return changed;
}

const CLI = fileURLToPath(new URL("../cli/main.js", import.meta.url));

/** Starts a run and SIGKILLs it after `afterMs`; resolves once it is gone. */
function killedRun(args: string[], afterMs: number): Promise<void> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: "ignore" });
  const timer = setTimeout(() => child.kill("SIGKILL"), afterMs);
  return new Promise((resolve) => {
    child.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const dir = await mkdtemp(join(tmpdir(), "lc-bench-incremental-"));
const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign", contextLength: 32768 });
try {
  console.log(`bench:incremental: stand-in at 0 ms, concurrency ${concurrency}; no model runs here (stand-in figures)`);
  const input = join(dir, "records.jsonl");
  const corpus = await writeGeneratedCorpus(input, records);
  const cache = join(dir, "verdicts.sqlite");
  const manifest = join(dir, "manifest.json");

  const cold = await run("the cold run", ingestArgs(input, manifest, standIn.url, cache), standIn);
  console.log(`cold: records=${records} input_mb=${(corpus.bytes / 1e6).toFixed(1)} calls=${cold.calls} seconds=${cold.run.seconds.toFixed(1)}`);

  const warm = await run("the warm run", ingestArgs(input, manifest, standIn.url, cache), standIn);
  const mbPerS = corpus.bytes / 1e6 / warm.run.seconds;
  console.log(
    `warm: calls=${warm.calls} seconds=${warm.run.seconds.toFixed(1)} input_mb_per_s=${mbPerS.toFixed(1)} peak_rss_mb=${warm.run.peakRssMb.toFixed(1)}`,
  );

  const changedInput = join(dir, "records-changed.jsonl");
  const changedCorpus = await writeGeneratedCorpus(changedInput, records, { changedEvery: 100, changeSalt: "rewritten ending" });
  const expected = changedSegments(records, 100);
  const partial = await run("the 1%-changed run", ingestArgs(changedInput, manifest, standIn.url, cache), standIn);
  console.log(
    `changed: records_changed=${changedCorpus.changed} segments_changed=${expected} calls=${partial.calls} seconds=${partial.run.seconds.toFixed(1)}`,
  );

  const killInput = join(dir, "records-kill.jsonl");
  await writeGeneratedCorpus(killInput, killRecords, { seed: 99 });
  const reference = await run("the reference run", ingestArgs(killInput, join(dir, "m-ref.json"), standIn.url, join(dir, "ref.sqlite")), standIn);
  const killCache = join(dir, "killed.sqlite");
  const killAt = Math.round((0.15 + 0.7 * random()) * reference.run.seconds * 1000);
  await standIn.takeServiceTimes();
  await killedRun(ingestArgs(killInput, join(dir, "m-kill.json"), standIn.url, killCache), killAt);
  const beforeKill = (await standIn.takeServiceTimes()).requests;
  const resumed = await run("the resumed run", ingestArgs(killInput, join(dir, "m-kill.json"), standIn.url, killCache), standIn);
  const repeated = beforeKill + resumed.calls - reference.calls;
  console.log(
    `kill: records=${killRecords} killed_after_ms=${killAt} calls_before_kill=${beforeKill} calls_after=${resumed.calls} full_run_calls=${reference.calls} repeated=${repeated}`,
  );

  const met = { zero: warm.calls === 0, speed: mbPerS >= MIN_MB_PER_S, exact: partial.calls === expected, resume: repeated <= concurrency };
  console.log(
    `targets: warm_calls=0 ${met.zero ? "met" : "NOT met"}; warm_mb_per_s>=${MIN_MB_PER_S} ${met.speed ? "met" : "NOT met"}; ` +
      `changed_calls=segments_changed ${met.exact ? "met" : "NOT met"}; repeated<=${concurrency} ${met.resume ? "met" : "NOT met"}`,
  );
  const all = Object.values(met).every(Boolean);
  console.log(`target_met=${all ? "yes" : "no"}`);
  if (!all) process.exitCode = 1;
} finally {
  await standIn.close();
  await rm(dir, { recursive: true, force: true });
}
