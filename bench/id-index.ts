// Benchmark for the per-run id index (`node dist/bench/id-index.js [--ids N] [--dir DIR]`,
// after `npm run build`): N generated record ids (default 1,000,000; 1% repeat an earlier id)
// through IdIndex.firstIndex in one run, timed by wall clock and CPU, with peak RSS sampled every
// 10,000 ids. Target: at least 200,000 ids/s. The last line is machine-readable:
// `id_index_ids_per_s=… peak_rss_mb=… duplicates=…`. A missed target sets process.exitCode = 1.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { IdIndex } from "../src/cache/id-index.js";
import { benchArgs, positiveIntegerArg } from "./_args.js";

const TARGET_IDS_PER_S = 200_000;

const ARGS = benchArgs("bench:id-index", "usage: node dist/bench/id-index.js [--ids 1000000 --dir DIR]\nexample: node dist/bench/id-index.js --ids 100000", {
  ids: { type: "string", default: "1000000" },
  dir: { type: "string" },
});

function main(): void {
  const count = positiveIntegerArg("bench:id-index", "ids", ARGS.ids);
  const dir = mkdtempSync(join(ARGS.dir ?? tmpdir(), "lc-bench-ids-"));
  let peakRss = process.memoryUsage().rss;
  let duplicates = 0;
  const index = IdIndex.create(dir);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  try {
    for (let i = 0; i < count; i++) {
      // Every 100th record repeats the id of a record about half-way back (a real duplicate).
      const back = Math.floor(i / 2);
      const id = i % 100 === 99 ? `doc-${back % 100 === 99 ? back - 1 : back}` : `doc-${i}`;
      if (index.firstIndex(id, i) !== i) duplicates++;
      if (i % 10_000 === 0) peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }
  } finally {
    index.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const perSecond = count / seconds;
  console.log(`id index: ${count} ids in ${seconds.toFixed(2)} s wall, ${cpuSeconds.toFixed(2)} s CPU (${Math.round(count / cpuSeconds)} ids per CPU second)`);
  console.log(`target: >= ${TARGET_IDS_PER_S} ids/s: ${perSecond >= TARGET_IDS_PER_S ? "met" : "NOT met"}`);
  console.log(`id_index_ids_per_s=${Math.round(perSecond)} peak_rss_mb=${(peakRss / 1048576).toFixed(1)} duplicates=${duplicates}`);
  if (perSecond < TARGET_IDS_PER_S) process.exitCode = 1;
}

main();
