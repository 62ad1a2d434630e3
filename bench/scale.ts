// bench:scale: ingest at corpus scale through the stand-in, then verify the pair.
//
// Generates 10,000 and 100,000 records (200–4,000 characters, some with metadata; see
// _generated-corpus.ts), ingests each through the loopback stand-in answering at once, at
// concurrency 16, in a child process (so the peak RSS is the ingest's own), and verifies the
// published pair in another. Prints records/s, checks/s, peak RSS and manifest bytes per run,
// and whether the targets are met: ingest peak RSS under 256 MB at 100,000 records and within
// 1.2x of the 10,000-record run; verify peak RSS under 256 MB.
//
//   npm run build && npm run bench:scale [-- --records 100000 --small 10000 --concurrency 16 --keep DIR]
//
// No model runs here: the stand-in answers every chat at once, so these figures measure
// little-canary's own streaming, checking and publication, not any model.
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { positiveIntegerArg } from "./_args.js";
import { runCliMeasured, type ChildRun } from "./_child-run.js";
import { writeGeneratedCorpus } from "./_generated-corpus.js";
import { benchIngestArgs, startBenchStandIn } from "./_standin.js";

const RSS_LIMIT_MB = 256;
const GROWTH_LIMIT = 1.2;

const { values } = parseArgs({
  options: {
    records: { type: "string", default: "100000" },
    small: { type: "string", default: "10000" },
    concurrency: { type: "string", default: "16" },
    keep: { type: "string" },
  },
});
const positive = (name: string, text: string): number => positiveIntegerArg("bench:scale", name, text);
const large = positive("records", values.records);
const small = positive("small", values.small);
const concurrency = positive("concurrency", values.concurrency);

interface Measured {
  readonly records: number;
  readonly inputBytes: number;
  readonly ingest: ChildRun;
  readonly verify: ChildRun;
  readonly checks: number;
  readonly manifestBytes: number;
  readonly exportBytes: number;
}

function failIfBad(what: string, run: ChildRun, allowed: readonly number[]): void {
  if (allowed.includes(run.exitCode)) return;
  console.error(`bench:scale: ${what} exited ${run.exitCode}\n${run.stderr.slice(-2000)}`);
  process.exit(1);
}

async function measure(dir: string, url: string, records: number): Promise<Measured> {
  const input = join(dir, `records-${records}.jsonl`);
  const corpus = await writeGeneratedCorpus(input, records);
  const manifest = join(dir, `manifest-${records}.json`);
  const exported = join(dir, `export-${records}.json`);
  const ingest = await runCliMeasured(benchIngestArgs(input, manifest, url, concurrency, ["--export", exported]));
  failIfBad(`ingest of ${records} records`, ingest, [0, 1, 2]);
  const checks = Number(/checks performed: (\d+)/.exec(ingest.stdout)?.[1] ?? Number.NaN);
  const verify = await runCliMeasured(["verify", "--manifest", manifest, "--export", exported]);
  failIfBad(`verify of ${records} records`, verify, [0]);
  const measured = {
    records,
    inputBytes: corpus.bytes,
    ingest,
    verify,
    checks,
    manifestBytes: (await stat(manifest)).size,
    exportBytes: (await stat(exported)).size,
  };
  if (values.keep === undefined) await rm(input, { force: true });
  return measured;
}

function report(m: Measured): string {
  return (
    `records=${m.records} input_mb=${(m.inputBytes / 1e6).toFixed(1)} ingest_s=${m.ingest.seconds.toFixed(1)} ` +
    `records_per_s=${(m.records / m.ingest.seconds).toFixed(0)} checks=${m.checks} checks_per_s=${(m.checks / m.ingest.seconds).toFixed(0)} ` +
    `ingest_peak_rss_mb=${m.ingest.peakRssMb.toFixed(1)} manifest_bytes=${m.manifestBytes} export_bytes=${m.exportBytes} ` +
    `verify_s=${m.verify.seconds.toFixed(1)} verify_peak_rss_mb=${m.verify.peakRssMb.toFixed(1)}`
  );
}

const dir = values.keep ?? (await mkdtemp(join(tmpdir(), "lc-bench-scale-")));
const standIn = await startBenchStandIn({ latencyMs: 0, replies: "benign", contextLength: 32768 });
try {
  console.log(`bench:scale: stand-in at 0 ms, concurrency ${concurrency}; no model runs here (stand-in figures)`);
  const smallRun = await measure(dir, standIn.url, small);
  console.log(report(smallRun));
  const largeRun = await measure(dir, standIn.url, large);
  console.log(report(largeRun));
  const growth = largeRun.ingest.peakRssMb / smallRun.ingest.peakRssMb;
  const met = {
    rss: largeRun.ingest.peakRssMb < RSS_LIMIT_MB,
    growth: growth <= GROWTH_LIMIT,
    verify: largeRun.verify.peakRssMb < RSS_LIMIT_MB,
  };
  console.log(
    `targets: ingest_peak_rss_mb<${RSS_LIMIT_MB} ${met.rss ? "met" : "NOT met"} (${largeRun.ingest.peakRssMb.toFixed(1)}); ` +
      `rss_growth<=${GROWTH_LIMIT} ${met.growth ? "met" : "NOT met"} (${growth.toFixed(2)}x of the ${small}-record run); ` +
      `verify_peak_rss_mb<${RSS_LIMIT_MB} ${met.verify ? "met" : "NOT met"} (${largeRun.verify.peakRssMb.toFixed(1)})`,
  );
  console.log(`target_met=${met.rss && met.growth && met.verify ? "yes" : "no"}`);
  if (!(met.rss && met.growth && met.verify)) process.exitCode = 1;
} finally {
  await standIn.close();
  if (values.keep === undefined) await rm(dir, { recursive: true, force: true });
}
