// bench:scale: ingest at corpus scale through the stand-in, then verify the pair, at a growing
// list of points, and print what each costs and whether issue 28's targets are met.
//
//   npm run build && npm run bench:scale [-- --points 10000,100000 --concurrency 16
//                                          --manifest-version 2 --keep DIR]
//
// For each point: generate that many records (200–4,000 characters, one in five with metadata;
// _generated-corpus.ts), ingest them with `--export` and a fresh `--cache` through the loopback
// stand-in answering at once (0 ms, in its own process) in a child process, so peak RSS and CPU
// are the ingest's own; read the cache's size with `cache stats`; `verify` the pair in another
// child; then time a bare `JSON.parse` + SHA-256 of the same manifest and export bytes in this
// process (_bare-parse.ts), the yardstick verify is held to. Verify and the bare pass run
// VERIFY_TRIALS times each, one after the other in pairs, and the pair whose ratio is the median
// is the one reported: one run of each swung the ratio by a fifth with the machine's load, the
// bare pass as much as verify. Prints per point: records/s,
// checks/s, CPU ms per record, peak RSS, manifest and export bytes per record (and per clean
// 2-segment record), cache bytes per cached segment, verify MB/s beside the bare MB/s, and the
// floor of a canonical check by re-serialization on one thread (parse, UTF-8 check, stringify and
// compare, hash; _bare-parse.ts) beside that. Then one
// `target_met=yes|no` line per target of issue 28 that this measures, and a linear projection of
// 10^7 records from the largest point (docs/scale.md, "Ten million records").
//
// `--manifest-version` is passed to `ingest` only when given, so the benchmark runs on a CLI with
// or without that flag. Each point's files are removed once it is measured, unless `--keep DIR`.
// No model runs here: the stand-in answers every chat at once, so these figures measure
// little-canary's own streaming, checking, caching and publication, not any model.
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolvePolicy } from "../src/documents/policy.js";
import { planSegments } from "../src/documents/segment-plan.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";
import { bareMbPerSecond, bareParseFile, canonicalFloorMbPerSecond, type BarePass } from "./_bare-parse.js";
import { runCliMeasured, type ChildRun } from "./_child-run.js";
import { generatedRecords, writeGeneratedCorpus } from "./_generated-corpus.js";
import { benchIngestArgs, startBenchStandIn } from "./_standin.js";

/** The default points: a list that fits in 15 minutes on the 2-core machine at load 4–5 (docs/scale.md). */
const DEFAULT_POINTS = "10000,30000,100000";
const PROJECT_TO = 10_000_000;
// Issue 28's targets.
const MANIFEST_BYTES_PER_CLEAN_RECORD = 600;
const CACHE_BYTES_PER_SEGMENT = 1000;
const VERIFY_SHARE_OF_BARE = 0.5;
const RSS_LIMIT_MB = 256;
const RSS_GROWTH_LIMIT = 1.2;
/** Paired runs of verify and the bare pass per point (odd, so that one pair is the median). */
const VERIFY_TRIALS = 3;

const USAGE = `usage: npm run bench:scale [-- --points N,N,... --concurrency N --manifest-version 1|2|3 --keep DIR]
  --points            record counts to ingest and verify (default ${DEFAULT_POINTS}; 500000 alone takes about 12 minutes here, 1000000 about 26 and 9 GB of disk)
  --concurrency       ingest --concurrency (default 16)
  --manifest-version  the manifest version ingest writes (default: ingest's)
  --keep DIR          keep each point's records, pair and cache in DIR
example: npm run bench:scale -- --points 10000 --keep /tmp/scale`;
const values = benchArgs("bench:scale", USAGE, {
  points: { type: "string", default: DEFAULT_POINTS },
  concurrency: { type: "string", default: "16" },
  "manifest-version": { type: "string" },
  keep: { type: "string" },
});
const points = [...new Set(values.points.split(",").map((text) => positiveIntegerArg("bench:scale", "points", text.trim())))].sort((a, b) => a - b);
const concurrency = positiveIntegerArg("bench:scale", "concurrency", values.concurrency);
const manifestVersionArgs = values["manifest-version"] === undefined ? [] : ["--manifest-version", values["manifest-version"]];
// The segment counts below are the plans ingest makes under the policy it runs with.
const policy = resolvePolicy({ max_items: 0, max_total_bytes: 0 });

interface Point {
  readonly records: number;
  readonly inputBytes: number;
  readonly ingest: ChildRun;
  readonly checks: number;
  readonly held: number;
  readonly manifestBytes: number;
  readonly exportBytes: number;
  /** Mean bytes of a record entry (with its comma) of an admitted record of exactly 2 segments. */
  readonly cleanTwoSegmentEntryBytes: number;
  readonly cacheBytes: number;
  readonly cacheEntries: number;
  /** The verify run of the median pair (see VERIFY_TRIALS), and its bare passes. */
  readonly verify: ChildRun;
  readonly bare: readonly BarePass[];
  /** Every pair's verify seconds and verify over bare, in the order they ran. */
  readonly trials: ReadonlyArray<{ readonly verifySeconds: number; readonly overBare: number }>;
}

/** A failed child run, reported by the top level after the stand-in and the files are gone. */
class ChildFailed extends Error {}

function failIfBad(what: string, run: ChildRun, allowed: readonly number[]): void {
  if (allowed.includes(run.exitCode)) return;
  throw new ChildFailed(`bench:scale: ${what} exited ${run.exitCode}\n${run.stderr.slice(-2000)}`);
}

function countIn(stdout: string, pattern: RegExp): number {
  return Number(pattern.exec(stdout)?.[1] ?? Number.NaN);
}

/** Bare pass over the manifest, noting the entry bytes of clean records planned as 2 segments. */
async function bareManifest(path: string, records: number): Promise<{ pass: BarePass; cleanTwoSegmentEntryBytes: number }> {
  // The records again, in the order ingest wrote their entries, to know each one's plan.
  const generated = generatedRecords(records);
  let bytes = 0;
  let count = 0;
  const pass = await bareParseFile(path, (value, ordinal, length) => {
    const next = generated.next();
    if (next.done === true || next.value.index !== ordinal) return;
    const { id, text, metadata } = next.value.record;
    if (planSegments({ id, source: null, metadata: metadata ?? {}, text }, policy).segments.length !== 2) return;
    const admission = (value as { admission?: unknown }).admission;
    if (admission !== undefined && admission !== "admitted") return;
    bytes += length + 1;
    count++;
  });
  return { pass, cleanTwoSegmentEntryBytes: count === 0 ? Number.NaN : bytes / count };
}

async function measure(dir: string, url: string, records: number): Promise<Point> {
  const input = join(dir, `records-${records}.jsonl`);
  const manifest = join(dir, `manifest-${records}.json`);
  const exported = join(dir, `export-${records}.json`);
  const cache = join(dir, `cache-${records}.sqlite`);
  const corpus = await writeGeneratedCorpus(input, records);
  const ingest = await runCliMeasured(benchIngestArgs(input, manifest, url, concurrency, ["--export", exported, "--cache", cache, ...manifestVersionArgs]));
  failIfBad(`ingest of ${records} records`, ingest, [0, 1, 2]);
  const stats = await runCliMeasured(["cache", "stats", "--cache", cache, "--json"]);
  failIfBad("cache stats", stats, [0]);
  const cacheStats = JSON.parse(stats.stdout) as { entries: number; size_bytes: number };
  const manifestBytes = (await stat(manifest)).size;
  const exportBytes = (await stat(exported)).size;
  const pairMb = (manifestBytes + exportBytes) / 1e6;
  const bareM = await bareManifest(manifest, records);
  const runs: Array<{ verify: ChildRun; bare: BarePass[]; overBare: number }> = [];
  for (let trial = 0; trial < VERIFY_TRIALS; trial++) {
    const verify = await runCliMeasured(["verify", "--manifest", manifest, "--export", exported]);
    failIfBad(`verify of ${records} records`, verify, [0]);
    const bare = [trial === 0 ? bareM.pass : await bareParseFile(manifest), await bareParseFile(exported)];
    runs.push({ verify, bare, overBare: pairMb / verify.seconds / bareMbPerSecond(bare) });
  }
  const median = [...runs].sort((a, b) => a.overBare - b.overBare)[Math.floor(runs.length / 2)] as (typeof runs)[number];
  const point: Point = {
    records,
    inputBytes: corpus.bytes,
    ingest,
    checks: countIn(ingest.stdout, /checks performed: (\d+)/),
    held: countIn(ingest.stdout, /(\d+) held/),
    manifestBytes,
    exportBytes,
    cleanTwoSegmentEntryBytes: bareM.cleanTwoSegmentEntryBytes,
    cacheBytes: cacheStats.size_bytes,
    cacheEntries: cacheStats.entries,
    verify: median.verify,
    bare: median.bare,
    trials: runs.map((run) => ({ verifySeconds: run.verify.seconds, overBare: run.overBare })),
  };
  // SQLite leaves its -wal and -shm files beside the cache; at a million records every file counts.
  const files = [input, manifest, exported, cache, `${cache}-wal`, `${cache}-shm`];
  if (values.keep === undefined) await Promise.all(files.map((path) => rm(path, { force: true })));
  return point;
}

const fixed = (n: number, digits = 0): string => n.toFixed(digits);
const pairBytes = (p: Point): number => p.manifestBytes + p.exportBytes;
const verifyMbPerS = (p: Point): number => pairBytes(p) / 1e6 / p.verify.seconds;
const cacheBytesPerSegment = (p: Point): number => p.cacheBytes / p.cacheEntries;

function report(p: Point): string {
  const parseS = p.bare.reduce((s, pass) => s + pass.parseSeconds, 0);
  const sha256S = p.bare.reduce((s, pass) => s + pass.sha256Seconds, 0);
  const bare = bareMbPerSecond(p.bare);
  const misses = p.bare.reduce((s, pass) => s + pass.canonicalMisses, 0);
  return [
    `records=${p.records} input_mb=${fixed(p.inputBytes / 1e6, 1)} held=${p.held}`,
    `  ingest_s=${fixed(p.ingest.seconds, 1)} records_per_s=${fixed(p.records / p.ingest.seconds)} checks=${p.checks} checks_per_s=${fixed(p.checks / p.ingest.seconds)} ` +
      `cpu_ms_per_record=${fixed((p.ingest.cpuSeconds * 1000) / p.records, 2)} ingest_peak_rss_mb=${fixed(p.ingest.peakRssMb, 1)}`,
    `  manifest_bytes_per_record=${fixed(p.manifestBytes / p.records)} manifest_bytes_per_clean_2seg_record=${fixed(p.cleanTwoSegmentEntryBytes)} ` +
      `export_bytes_per_record=${fixed(p.exportBytes / p.records)} cache_bytes_per_segment=${fixed(cacheBytesPerSegment(p))} cache_segments=${p.cacheEntries}`,
    `  verify_s=${fixed(p.verify.seconds, 1)} verify_cpu_s=${fixed(p.verify.cpuSeconds, 1)} verify_mb_per_s=${fixed(verifyMbPerS(p), 1)} verify_peak_rss_mb=${fixed(p.verify.peakRssMb, 1)} ` +
      `bare_mb_per_s=${fixed(bare, 1)} (json_parse_mb_per_s=${fixed(pairBytes(p) / 1e6 / parseS, 1)} sha256_mb_per_s=${fixed(pairBytes(p) / 1e6 / sha256S)}) ` +
      `verify_over_bare=${fixed(verifyMbPerS(p) / bare, 2)} ` +
      `(median of ${p.trials.length} pairs: verify_s=${p.trials.map((t) => fixed(t.verifySeconds, 2)).join(",")} verify_over_bare=${p.trials.map((t) => fixed(t.overBare, 2)).join(",")})`,
    `  canonical_floor_mb_per_s=${fixed(canonicalFloorMbPerSecond(p.bare), 1)} canonical_floor_over_bare=${fixed(canonicalFloorMbPerSecond(p.bare) / bare, 2)}` +
      (misses > 0 ? ` (${misses} entries did not re-serialize to their own text)` : ""),
  ].join("\n");
}

/** One line per target; returns whether it was met. */
function target(name: string, figure: string, met: boolean): boolean {
  console.log(`target ${name}: ${figure} target_met=${met ? "yes" : "no"}`);
  return met;
}

/**
 * 10^7 records at the largest point's rates: every figure here grows linearly with records. Peak
 * RSS is not projected: the line gives the largest point's and how ingest's grew from the smallest
 * point (`growth`, null when only one point ran, so nothing says whether it grows).
 */
function projection(p: Point, growth: number | null): string {
  const scale = PROJECT_TO / p.records;
  const gb = (bytes: number) => fixed((bytes * scale) / 1e9, 1);
  return (
    `projection records=${PROJECT_TO} from=${p.records} ingest_wall_h=${fixed((p.ingest.seconds * scale) / 3600, 1)} ` +
    `ingest_cpu_h=${fixed((p.ingest.cpuSeconds * scale) / 3600, 1)} verify_wall_h=${fixed((p.verify.seconds * scale) / 3600, 2)} ` +
    `verify_cpu_h=${fixed((p.verify.cpuSeconds * scale) / 3600, 2)} manifest_gb=${gb(p.manifestBytes)} export_gb=${gb(p.exportBytes)} ` +
    `cache_gb=${gb(p.cacheBytes)} input_gb=${gb(p.inputBytes)} (peak RSS not projected: ${fixed(p.ingest.peakRssMb)} MB ingest, ${fixed(p.verify.peakRssMb)} MB verify ` +
    `at this point; ${growth === null ? "one point ran, so its growth with records is not measured" : `ingest's ${fixed(growth, 2)}x the smallest point's`})`
  );
}

const started = performance.now();
const dir = values.keep ?? (await mkdtemp(join(tmpdir(), "lc-bench-scale-")));
await mkdir(dir, { recursive: true });
const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign", contextLength: 32768 });
try {
  console.log(
    `bench:scale: points ${points.join(",")}, stand-in at 0 ms in its own process, concurrency ${concurrency}, --cache on` +
      `${manifestVersionArgs.length > 0 ? `, --manifest-version ${values["manifest-version"]}` : ""}; no model runs here (stand-in figures)`,
  );
  const measured: Point[] = [];
  for (const records of points) {
    const point = await measure(dir, standIn.url, records);
    measured.push(point);
    console.log(report(point));
  }
  const largest = measured.at(-1) as Point;
  const smallest = measured[0] as Point;
  const bare = bareMbPerSecond(largest.bare);
  const worstIngestRss = Math.max(...measured.map((p) => p.ingest.peakRssMb));
  const worstVerifyRss = Math.max(...measured.map((p) => p.verify.peakRssMb));
  // One point measures no growth: the bound then rests on the 256 MB limit alone, and says so.
  const growth = measured.length > 1 ? largest.ingest.peakRssMb / smallest.ingest.peakRssMb : null;
  const met = [
    target(
      `manifest_bytes_per_clean_2seg_record<=${MANIFEST_BYTES_PER_CLEAN_RECORD}`,
      fixed(largest.cleanTwoSegmentEntryBytes),
      largest.cleanTwoSegmentEntryBytes <= MANIFEST_BYTES_PER_CLEAN_RECORD,
    ),
    target(
      `cache_bytes_per_segment<=${CACHE_BYTES_PER_SEGMENT}`,
      fixed(cacheBytesPerSegment(largest)),
      cacheBytesPerSegment(largest) <= CACHE_BYTES_PER_SEGMENT,
    ),
    target(
      `verify_mb_per_s>=${VERIFY_SHARE_OF_BARE}*bare_mb_per_s`,
      `${fixed(verifyMbPerS(largest), 1)} vs ${fixed(VERIFY_SHARE_OF_BARE * bare, 1)}`,
      verifyMbPerS(largest) >= VERIFY_SHARE_OF_BARE * bare,
    ),
    target(
      `peak_rss_bounded (ingest and verify <${RSS_LIMIT_MB} MB at every point, ingest largest/smallest <=${RSS_GROWTH_LIMIT})`,
      `ingest ${fixed(worstIngestRss, 1)} MB, verify ${fixed(worstVerifyRss, 1)} MB, ${growth === null ? "growth not measured (one point)" : `growth ${fixed(growth, 2)}x`}`,
      worstIngestRss < RSS_LIMIT_MB && worstVerifyRss < RSS_LIMIT_MB && (growth === null || growth <= RSS_GROWTH_LIMIT),
    ),
  ];
  console.log(projection(largest, growth));
  console.log(`total_s=${fixed((performance.now() - started) / 1000)}`);
  if (met.includes(false)) process.exitCode = 1;
} catch (error) {
  if (!(error instanceof ChildFailed)) throw error;
  console.error(error.message);
  process.exitCode = 1;
} finally {
  await standIn.close();
  if (values.keep === undefined) await rm(dir, { recursive: true, force: true });
}
