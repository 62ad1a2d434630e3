// bench:screen-scale — memory of `little-canary screen` at scale: 10,000 and then 100,000
// generated items (200–4,000 characters, a third of them objects with an id and a source)
// through the built CLI (`dist/cli/main.js`, stdout to a file) against the bench stand-in canary
// answering at once (0 ms), at --concurrency 16 with --max-items 0 and --max-total-bytes 0. Each
// run is its own process; its peak RSS (`process.resourceUsage().maxRSS`, written at exit by the
// preloaded _peak-rss.js) is its own.
// Targets: peak RSS below 256 MB at 100,000 items, and within 1.2× of the 10,000-item run.
// Last line:
//   items_10k_per_s=… rss_10k_mb=… items_100k_per_s=… rss_100k_mb=… rss_ratio=… target_met=true|false
// Stand-in figures, not model figures. Usage: npm run bench:screen-scale [-- --items N --small N --write-doc]
import { spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdtemp, open, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { machineLine, writeSection } from "./_perf-doc.js";
import { startBenchStandIn } from "./_standin.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";

const CONCURRENCY = 16;
const RSS_LIMIT_MB = 256;
const RSS_RATIO_LIMIT = 1.2;

interface RunFigures {
  readonly items: number;
  readonly seconds: number;
  readonly exitCode: number;
  readonly peakRssMb: number;
  readonly documentBytes: number;
}

const ARGS = benchArgs(
  "bench:screen-scale",
  "usage: npm run bench:screen-scale [-- --items 100000 --small 10000 --write-doc]\nexample: npm run bench:screen-scale -- --items 20000 --small 2000",
  { items: { type: "string", default: "100000" }, small: { type: "string", default: "10000" }, "write-doc": { type: "boolean", default: false } },
);

/** A deterministic pseudo-random text of 200–4,000 characters for item `i`. */
function text(i: number): string {
  const words = ["river", "market", "harbor", "orchard", "ledger", "signal", "lantern", "meadow", "copper", "window"];
  let state = (i * 2654435761) >>> 0;
  const next = (): number => {
    state = (state * 1103515245 + 12345) >>> 0;
    return state;
  };
  const length = 200 + (next() % 3801);
  let out = `Item ${i}:`;
  while (out.length < length) out += ` ${words[next() % words.length]}`;
  return out.slice(0, length);
}

/** Writes `count` items as JSONL, respecting the file stream's backpressure. */
async function writeItems(path: string, count: number): Promise<void> {
  const out = createWriteStream(path);
  for (let i = 0; i < count; i++) {
    const body = text(i);
    const line = `${JSON.stringify(i % 3 === 0 ? { text: body, id: `n${i}`, source: "bench" } : body)}\n`;
    if (!out.write(line)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const HERE = dirname(fileURLToPath(import.meta.url));
/** dist/bench → the built CLI entry and the peak-RSS preload beside this script. */
const CLI_ENTRY = join(HERE, "..", "cli", "main.js");
const PEAK_RSS_PRELOAD = pathToFileURL(join(HERE, "_peak-rss.js")).href;

/** One measured run of the CLI, in a fresh process. */
async function measure(file: string, url: string, items: number, dir: string): Promise<RunFigures> {
  const outPath = join(dir, `out-${items}.json`);
  const rssPath = join(dir, `rss-${items}.txt`);
  const args = ["screen", file, "--ollama-url", url, "--timeout", "60", "--concurrency", String(CONCURRENCY), "--max-items", "0", "--max-total-bytes", "0"];
  const out = await open(outPath, "w");
  const started = performance.now();
  const exitCode = await new Promise<number>((resolvePromise, reject) => {
    const child = spawn(process.execPath, ["--import", PEAK_RSS_PRELOAD, CLI_ENTRY, ...args], {
      env: { PATH: process.env["PATH"] ?? "", LC_PEAK_RSS_FILE: rssPath },
      stdio: ["ignore", out.fd, "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) => resolvePromise(code ?? -1));
  });
  const seconds = (performance.now() - started) / 1000;
  await out.close();
  const peakRssMb = Number(await readFile(rssPath, "utf8")) / 1024;
  const documentBytes = (await stat(outPath)).size;
  return { items, seconds, exitCode, peakRssMb, documentBytes };
}

const line = (run: RunFigures): string =>
  `items=${run.items} seconds=${run.seconds.toFixed(1)} items_per_s=${(run.items / run.seconds).toFixed(0)} peak_rss_mb=${run.peakRssMb.toFixed(1)} document_bytes=${run.documentBytes} exit_code=${run.exitCode}`;

async function main(): Promise<void> {
  const large = positiveIntegerArg("bench:screen-scale", "items", ARGS.items);
  const small = positiveIntegerArg("bench:screen-scale", "small", ARGS.small);
  const dir = await mkdtemp(join(tmpdir(), "lc-bench-screen-scale-"));
  const standIn = await startBenchStandIn({ latencyMs: 0, replies: "mixed" });
  try {
    const runs: RunFigures[] = [];
    for (const items of [small, large]) {
      const file = join(dir, `items-${items}.jsonl`);
      await writeItems(file, items);
      const run = await measure(file, standIn.url, items, dir);
      console.log(line(run));
      runs.push(run);
      await rm(join(dir, `out-${items}.json`), { force: true });
    }
    const [s, l] = runs as [RunFigures, RunFigures];
    const ratio = l.peakRssMb / s.peakRssMb;
    const targetMet = l.peakRssMb < RSS_LIMIT_MB && ratio <= RSS_RATIO_LIMIT;
    const final =
      `items_small_per_s=${(s.items / s.seconds).toFixed(0)} rss_small_mb=${s.peakRssMb.toFixed(1)} ` +
      `items_large_per_s=${(l.items / l.seconds).toFixed(0)} rss_large_mb=${l.peakRssMb.toFixed(1)} rss_ratio=${ratio.toFixed(2)} target_met=${targetMet}`;
    writeSection(
      "screen-scale",
      [
        "## bench:screen-scale — `screen` memory at scale",
        "",
        `Stand-in figures, not model figures. Machine: ${machineLine()}. Generated ${new Date().toISOString().slice(0, 10)}.`,
        "",
        `${small} and ${large} generated items (200–4,000 characters) through the CLI at --concurrency ${CONCURRENCY}, the stand-in answering at once; ` +
          `each run in its own process. Targets: peak RSS < ${RSS_LIMIT_MB} MB at ${large} items and within ${RSS_RATIO_LIMIT}× of the ${small}-item run.`,
        "",
        "```",
        line(s),
        line(l),
        final,
        "```",
      ].join("\n"),
    );
    console.log(final);
    if (!targetMet) process.exitCode = 1;
  } finally {
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench:screen-scale failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
