// bench:verify — `little-canary verify` on a large genuine pair, in bounded memory.
//
//   npm run build && npm run bench:verify -- [--records N] [--dir PATH] [--keep]
//
// Generates N records (default 100,000; 200–4,000 characters of words, one in five with
// metadata, one in fifty held by a scripted canary block) and writes the manifest and export
// ingest would write for them into a temporary directory (or --dir), by streaming canonical
// pieces: each record entry is made canonical on its own (finishedEntryText) and spooled,
// and the document's rest is joined around the spooled records by the serializer's rules
// (canonicalObjectWithArray). A self-check first builds a small pair both this way and with
// buildManifest/buildExport and requires identical bytes. Then it runs the CLI's `verify` in a
// child process and prints the child's peak RSS (its own `process.resourceUsage().maxRSS`,
// reported at exit), the file sizes and the throughput (wall time of the CLI, start-up included).
// Around it, in this process, the bare floor over the same bytes: `JSON.parse` of every record
// and of each document's frame (cut at the offsets the generator wrote) and SHA-256 of every
// byte, read in 1 MiB chunks; measured before and after `verify` (the machine is shared) and
// averaged. It prints both MB/s, the ratio and
//   target_met=yes|no   (verify >= 0.5 x bare JSON.parse + SHA-256, issue 28)
// and, last:
//   target_met=yes|no   (the pair verifies consistent with peak RSS < 256 MB)
// Nothing tracked is written; the directory is removed unless --keep or --dir is given.
// The verdicts are scripted stand-ins, not model output.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { mkdir, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { canonicalJson } from "../src/core/canonical.js";
import { canonicalObjectWithArray } from "../test/support/core-text.js";
import { sha256Hex } from "../src/core/hash.js";
import { classifySegmentVerdict } from "../src/documents/classify.js";
import { countRecords } from "../src/documents/counts.js";
import { finishedEntryText } from "../src/documents/manifest-build.js";
import { buildExport, buildManifest, type AdmittedSnapshot } from "../test/support/whole-documents.js";
import { checkedRecordEntry, NOT_CHECKED, type SegmentResult } from "../src/documents/manifest-records.js";
import { resolvePolicy, type IngestPolicy } from "../src/documents/policy.js";
import { stopsChecking } from "../src/documents/record-state.js";
import {
  EXPORT_SCHEMA,
  ExportRecordSchema,
  IngestExportSchema,
  IngestManifestSchema,
  MANIFEST_SCHEMA,
  type IngestManifest,
  type ManifestRecord,
  type PipelineInfo,
} from "../src/documents/schemas.js";
import { materialSha256 } from "../src/documents/material-hash.js";
import { planSegments, type SegmentableRecord } from "../src/documents/segment-plan.js";
import type { VerdictJson } from "../src/documents/verdict-schema.js";
import { bareParseFile } from "./_bare-parse.js";
import { PLAIN_WORDS, seededRandom } from "./_random.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";

const TARGET_RSS_MB = 256;
/** Issue 28: verify reaches at least this fraction of a bare JSON.parse + SHA-256 over the same bytes. */
const TARGET_BARE_RATIO = 0.5;
const MARK = "\u0000";

const USAGE = `usage: npm run bench:verify [-- --records N --dir PATH --keep]
  --records N   records in the generated pair (default 100000)
  --dir PATH    write the pair under PATH and keep it (default: a temporary directory, removed)
  --keep        keep the temporary directory
example: npm run bench:verify -- --records 20000`;
const ARGS = benchArgs("bench:verify", USAGE, {
  records: { type: "string", default: "100000" },
  dir: { type: "string" },
  keep: { type: "boolean", default: false },
});
const RECORDS = positiveIntegerArg("bench:verify", "records", ARGS.records);

const PIPELINE: PipelineInfo = {
  mode: "full",
  provider: "ollama",
  canary_model: "qwen2.5:1.5b",
  canary_model_digest: "sha256:65ec0654",
  analysis_method: "regex",
  structural_filter: true,
  canary_enabled: true,
  canary_num_ctx: 15044,
  canary_context_length: 32768,
  canary_context_verified: true,
};

const PASS: VerdictJson = {
  safe: true,
  total_latency: 0.0123,
  blocked_by: null,
  summary: "Input passed all enabled security layers; behavioral probe exercised (0.012s)",
  canary_risk_score: 0,
  degraded: false,
  canary_status: "exercised",
  analysis_method: "regex",
  analysis_status: "exercised",
  layers: [
    { name: "structural_filter", passed: true, status: "passed", latency: 0.0002, details: "Clean" },
    { name: "canary_probe", passed: true, status: "passed", latency: 0.0121, details: "No behavioral anomalies detected." },
  ],
  advisory: { flagged: false, severity: "none", signals: [], message: "" },
};
const BLOCK: VerdictJson = {
  ...PASS,
  safe: false,
  blocked_by: "canary_probe",
  summary: "Input blocked by canary_probe (0.012s)",
  canary_risk_score: 1,
  advisory: { flagged: true, severity: "high", signals: ["persona_shift"], message: "persona shift" },
};

const WORDS = PLAIN_WORDS;

const prng = seededRandom;

function makeRecord(i: number, random: () => number): SegmentableRecord {
  const length = 200 + Math.floor(random() * 3801);
  let text = i % 50 === 7 ? "BLOCK " : "";
  while (text.length < length) text += `${WORDS[Math.floor(random() * WORDS.length)]} `;
  text = text.slice(0, length).trimEnd() || "x";
  const metadata: Record<string, string> = i % 5 === 0 ? { title: `Document ${i}`, author: WORDS[i % WORDS.length] as string } : {};
  return { id: `doc-${i}`, source: i % 3 === 0 ? "wiki" : null, metadata, text };
}

/** The manifest entry ingest would write for `record` with the scripted canary. */
function entryFor(index: number, record: SegmentableRecord, policy: IngestPolicy): { entry: ManifestRecord; checks: number } {
  const plan = planSegments(record, policy);
  if (plan.over_budget) throw new Error(`generated record ${index} is over budget`);
  const results: SegmentResult[] = [];
  let stopped = false;
  let checks = 0;
  for (const segment of plan.segments) {
    if (stopped) {
      results.push(NOT_CHECKED);
      continue;
    }
    checks++;
    const verdict = segment.text.includes("BLOCK") ? BLOCK : PASS;
    const classified = classifySegmentVerdict(verdict);
    if ("error" in classified) throw new Error("scripted verdict does not classify");
    const result: SegmentResult = {
      state: classified.state,
      exercised: classified.exercised,
      verdict,
      error: null,
      latency: verdict.total_latency,
      prompt_eval_count: 812,
    };
    results.push(result);
    if (policy.stop_after_hold && stopsChecking(result.state)) stopped = true;
  }
  return { entry: checkedRecordEntry({ index, record, plan, results }), checks };
}

const STARTED = "2026-09-29T12:00:00.000Z";
const FINISHED = "2026-09-29T12:40:00.000Z";

function addCounts(a: Record<string, unknown>, b: Record<string, unknown>): void {
  for (const key of Object.keys(b)) {
    const x = a[key];
    const y = b[key];
    if (typeof x === "number" && typeof y === "number") a[key] = x + y;
    else if (typeof x === "object" && x !== null && typeof y === "object" && y !== null) addCounts(x as Record<string, unknown>, y as Record<string, unknown>);
  }
}

async function write(stream: WriteStream, text: string): Promise<void> {
  if (!stream.write(text)) await new Promise<void>((done) => stream.once("drain", done));
}

async function close(stream: WriteStream): Promise<void> {
  await new Promise<void>((done, fail) => stream.end((error?: Error | null) => (error ? fail(error) : done())));
}

/** Writes `prefix`, the spooled file, `suffix` to `path`; returns the SHA-256 of what it wrote. */
async function splice(path: string, prefix: string, spool: string, suffix: string): Promise<string> {
  const out = createWriteStream(path);
  const hash = createHash("sha256");
  const put = async (chunk: string | Buffer) => {
    hash.update(chunk);
    await write(out, chunk as string);
  };
  await put(prefix);
  for await (const chunk of createReadStream(spool)) await put(chunk as Buffer);
  await put(suffix);
  await close(out);
  return hash.digest("hex");
}

/** The rest of a document around its records (checked against its schema with records: []). */
function aroundRecords<T extends Record<string, unknown>>(schema: typeof IngestManifestSchema | typeof IngestExportSchema, rest: T): [string, string] {
  canonicalJson(schema, { ...rest, records: [] });
  return canonicalObjectWithArray(rest, "records", [MARK]).split(MARK) as [string, string];
}

/**
 * Streams the pair of `n` generated records into `dir`: record texts are spooled as they are
 * made, so memory holds one record at a time (plus the per-record counts being summed).
 */
async function writePair(dir: string, n: number): Promise<{ manifest: string; exported: string; manifestLayout: Layout; exportLayout: Layout }> {
  const policy = resolvePolicy({ max_items: n, max_total_bytes: n * 8192 });
  const random = prng(14);
  const manifestSpool = join(dir, "manifest.records.tmp");
  const exportSpool = join(dir, "export.records.tmp");
  const mOut = createWriteStream(manifestSpool);
  const eOut = createWriteStream(exportSpool);
  const counts = countRecords([]) as unknown as Record<string, unknown>;
  const input = createHash("sha256");
  let checks = 0;
  let exported = 0;
  const manifestRecordBytes: number[] = [];
  const exportRecordBytes: number[] = [];
  for (let i = 0; i < n; i++) {
    const record = makeRecord(i, random);
    input.update(`${JSON.stringify(record)}\n`);
    const made = entryFor(i, record, policy);
    checks += made.checks;
    const minted = { json: finishedEntryText(made.entry, i, policy, 1) };
    manifestRecordBytes.push(Buffer.byteLength(minted.json));
    addCounts(counts, countRecords([made.entry]) as unknown as Record<string, unknown>);
    await write(mOut, i === 0 ? minted.json : `,${minted.json}`);
    if (made.entry.admission === "admitted") {
      const exportRecord = {
        index: i,
        id: record.id,
        source: record.source,
        sha256: sha256Hex(record.text),
        material_sha256: materialSha256(record),
        metadata: record.metadata as Record<string, string>,
        text: record.text,
      };
      const json = canonicalJson(ExportRecordSchema, exportRecord, ["records", exported]);
      exportRecordBytes.push(Buffer.byteLength(json));
      await write(eOut, exported === 0 ? json : `,${json}`);
      exported++;
    }
  }
  await Promise.all([close(mOut), close(eOut)]);
  // Ids are unique here, so the per-record duplicate_ids (0 each) sum to the right total.
  const rest: Omit<IngestManifest, "records"> = {
    schema: MANIFEST_SCHEMA,
    little_canary_version: "0.1.0",
    started_at: STARTED,
    finished_at: FINISHED,
    pipeline: PIPELINE,
    policy,
    run: { status: "complete", records_total: n, checks_performed: checks, input_sha256: input.digest("hex"), export_requested: true },
    counts: counts as unknown as IngestManifest["counts"],
  };
  const [mPrefix, mSuffix] = aroundRecords(IngestManifestSchema, rest);
  const manifestPath = join(dir, "manifest.json");
  const manifestSha = await splice(manifestPath, mPrefix, manifestSpool, mSuffix);
  const exportRest = { schema: EXPORT_SCHEMA, manifest_schema: MANIFEST_SCHEMA, manifest_sha256: manifestSha, policy_name: policy.name };
  const [ePrefix, eSuffix] = aroundRecords(IngestExportSchema, exportRest);
  const exportPath = join(dir, "export.json");
  await splice(exportPath, ePrefix, exportSpool, eSuffix);
  await Promise.all([rm(manifestSpool), rm(exportSpool)]);
  return {
    manifest: manifestPath,
    exported: exportPath,
    manifestLayout: { prefix: mPrefix, records: manifestRecordBytes, suffix: mSuffix },
    exportLayout: { prefix: ePrefix, records: exportRecordBytes, suffix: eSuffix },
  };
}

/** Where a generated document's pieces are: its frame and the byte length of each record (joined by ","). */
interface Layout {
  readonly prefix: string;
  readonly records: readonly number[];
  readonly suffix: string;
}

/**
 * The bare floor over one file: every byte hashed (SHA-256) and every record and the frame
 * `JSON.parse`d, nothing else (`bareParseFile`, the yardstick bench:scale uses too).
 */
async function bareParseAndHash(path: string, layout: Layout): Promise<void> {
  const pass = await bareParseFile(path);
  if (pass.elements !== layout.records.length) throw new Error(`bare parse of ${path} did not find every record`);
}

/** The bare floor over both files: its throughput in MB/s and the CPU seconds it took. */
async function bareRun(files: ReadonlyArray<{ path: string; layout: Layout }>, totalBytes: number): Promise<{ mbPerS: number; cpuSeconds: number }> {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (const file of files) await bareParseAndHash(file.path, file.layout);
  const used = process.cpuUsage(cpu);
  return { mbPerS: totalBytes / 1e6 / (Number(process.hrtime.bigint() - started) / 1e9), cpuSeconds: (used.user + used.system) / 1e6 };
}

/** The streamed pair for a few records is byte for byte what buildManifest/buildExport make. */
async function selfCheck(dir: string): Promise<void> {
  const n = 60;
  const { manifest, exported } = await writePair(dir, n);
  const policy = resolvePolicy({ max_items: n, max_total_bytes: n * 8192 });
  const random = prng(14);
  const records: ManifestRecord[] = [];
  const admitted: AdmittedSnapshot[] = [];
  const input = createHash("sha256");
  let checks = 0;
  for (let i = 0; i < n; i++) {
    const record = makeRecord(i, random);
    input.update(`${JSON.stringify(record)}\n`);
    const made = entryFor(i, record, policy);
    checks += made.checks;
    records.push(made.entry);
    if (made.entry.admission === "admitted") admitted.push({ index: i, record });
  }
  const built = buildManifest({
    little_canary_version: "0.1.0",
    started_at: STARTED,
    finished_at: FINISHED,
    pipeline: PIPELINE,
    policy,
    checks_performed: checks,
    input_sha256: input.digest("hex"),
    export_requested: true,
    records,
  });
  const builtExport = buildExport(built, admitted);
  const { readFile } = await import("node:fs/promises");
  const same =
    Buffer.compare(await readFile(manifest), Buffer.from(built.bytes)) === 0 && Buffer.compare(await readFile(exported), Buffer.from(builtExport.bytes)) === 0;
  if (!same) throw new Error("self-check failed: the streamed pair differs from buildManifest/buildExport");
  await Promise.all([rm(manifest), rm(exported)]);
}

/** Runs `verify` in a child and returns its exit code, stdout, wall time and peak RSS. */
async function runVerify(
  manifest: string,
  exported: string,
): Promise<{ code: number | null; stdout: string; seconds: number; peakRssMb: number | null; cpuSeconds: number | null }> {
  const cli = resolve(dirname(fileURLToPath(import.meta.url)), "..", "cli", "main.js");
  // The child reports its own peak RSS on exit (kilobytes), on a line of its own on stderr.
  // And its CPU time (user + system, microseconds): on a shared machine, a steadier figure than wall time.
  const report =
    "data:text/javascript,process.on('exit',()=>{const r=process.resourceUsage();process.stderr.write('\\nmaxrss_kb='+r.maxRSS+' cpu_us='+(r.userCPUTime+r.systemCPUTime)+'\\n')})";
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ["--import", report, cli, "verify", "--manifest", manifest, "--export", exported, "--json"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = /maxrss_kb=(\d+)/.exec(stderr);
  const cpu = /cpu_us=(\d+)/.exec(stderr);
  return { code, stdout, seconds, peakRssMb: rss ? Number(rss[1]) / 1024 : null, cpuSeconds: cpu ? Number(cpu[1]) / 1e6 : null };
}

async function main(): Promise<void> {
  const given = ARGS.dir;
  const dir = given === undefined ? await mkdtemp(join(tmpdir(), "lc-bench-verify-")) : resolve(given);
  await mkdir(dir, { recursive: true });
  const keep = given !== undefined || ARGS.keep;
  try {
    await selfCheck(dir);
    process.stdout.write("self_check=ok (streamed pair of 60 records equals buildManifest/buildExport byte for byte)\n");
    const generated = process.hrtime.bigint();
    const { manifest, exported, manifestLayout, exportLayout } = await writePair(dir, RECORDS);
    const genSeconds = Number(process.hrtime.bigint() - generated) / 1e9;
    const manifestBytes = (await stat(manifest)).size;
    const exportBytes = (await stat(exported)).size;
    const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
    process.stdout.write(
      `records=${RECORDS} manifest_bytes=${manifestBytes} (${mb(manifestBytes)} MB) export_bytes=${exportBytes} (${mb(exportBytes)} MB) generated_in_s=${genSeconds.toFixed(1)}\n`,
    );
    const files = [
      { path: manifest, layout: manifestLayout },
      { path: exported, layout: exportLayout },
    ];
    const bareBefore = await bareRun(files, manifestBytes + exportBytes);
    const run = await runVerify(manifest, exported);
    const bareAfter = await bareRun(files, manifestBytes + exportBytes);
    let consistent = false;
    try {
      consistent = (JSON.parse(run.stdout) as { consistent?: unknown }).consistent === true;
    } catch {
      consistent = false;
    }
    const throughput = (manifestBytes + exportBytes) / 1e6 / run.seconds;
    const rss = run.peakRssMb === null ? "unknown" : run.peakRssMb.toFixed(1);
    process.stdout.write(
      `verify: exit=${run.code} consistent=${consistent} seconds=${run.seconds.toFixed(2)} mb_per_s=${throughput.toFixed(1)} peak_rss_mb=${rss}\n`,
    );
    const bare = (bareBefore.mbPerS + bareAfter.mbPerS) / 2;
    const bareCpu = (bareBefore.cpuSeconds + bareAfter.cpuSeconds) / 2;
    const ratio = throughput / bare;
    process.stdout.write(
      `bare: json_parse_sha256 mb_per_s=${bare.toFixed(1)} (before verify ${bareBefore.mbPerS.toFixed(1)}, after ${bareAfter.mbPerS.toFixed(1)}; JSON.parse of every record and frame + SHA-256 of every byte, in this process) cpu_s=${bareCpu.toFixed(2)}\n`,
    );
    // CPU seconds (the child's include its start-up) are steadier than wall time on a shared machine.
    const cpuRatio = run.cpuSeconds === null ? "unknown" : (bareCpu / run.cpuSeconds).toFixed(2);
    process.stdout.write(`verify_cpu_s=${run.cpuSeconds === null ? "unknown" : run.cpuSeconds.toFixed(2)} cpu_ratio=${cpuRatio} (bare CPU / verify CPU)\n`);
    process.stdout.write(`verify_vs_bare: ratio=${ratio.toFixed(2)}\n`);
    process.stdout.write(
      `target_met=${ratio >= TARGET_BARE_RATIO ? "yes" : "no"} (verify >= ${TARGET_BARE_RATIO} x bare JSON.parse + SHA-256 over the same bytes)\n`,
    );
    const met = run.code === 0 && consistent && run.peakRssMb !== null && run.peakRssMb < TARGET_RSS_MB;
    process.stdout.write(`target_met=${met ? "yes" : "no"} (consistent and peak RSS < ${TARGET_RSS_MB} MB)\n`);
    if (!met) process.exitCode = 1;
  } finally {
    if (!keep) await rm(dir, { recursive: true, force: true });
    else process.stdout.write(`kept: ${dir}\n`);
  }
}

await main();
