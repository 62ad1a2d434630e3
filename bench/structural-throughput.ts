// Structural-filter throughput: UTF-8 megabytes per second over the prompts of the corpora named
// with `--corpus <file> [<file> ...]` (repeatable) repeated to 64 MiB in total, each checked one at a time as a caller would; then the slowest single check
// among the adversarial 4000-code-point shapes. Last line:
//   structural_mb_per_s=<MB/s> worst_case_ms=<ms>
// (MB = 10^6 bytes.) Pure CPU, in-process: no model, no network.

import { StructuralFilter } from "../src/structural/filter.js";
import { utf8ByteLength } from "../src/core/codepoints.js";
import { REDOS_SHAPES } from "../fixtures/structural/redos-shapes.js";
import { loadCorporaFromArgs } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";

const TOTAL_BYTES = 64 * 1024 * 1024;
const WORST_CASE_REPEATS = 5;

const USAGE =
  "npm run bench:structural-throughput -- --corpus ../shared/corpora/prompts.json --corpus ../shared/corpora/prompts_fp_realistic.json [--write-doc]";

async function main(): Promise<void> {
  const filter = new StructuralFilter();
  const prompts = (await loadCorporaFromArgs("structural-throughput", USAGE)).cases.map((c) => c.prompt);
  const sizes = prompts.map(utf8ByteLength);

  // Warm up the regex engine so the measurement is steady state.
  for (const p of prompts) filter.check(p);

  let bytes = 0;
  let checks = 0;
  let blocked = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; bytes < TOTAL_BYTES; i = (i + 1) % prompts.length) {
    if (filter.check(prompts[i] as string).blocked) blocked++;
    bytes += sizes[i] as number;
    checks++;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const mbPerS = bytes / 1e6 / seconds;
  console.log(`throughput: ${checks} checks, ${(bytes / 1048576).toFixed(1)} MiB in ${seconds.toFixed(2)} s (${blocked} blocked)`);

  let worst = 0;
  let worstName = "";
  for (const shape of REDOS_SHAPES) {
    for (let r = 0; r < WORST_CASE_REPEATS; r++) {
      const t0 = process.hrtime.bigint();
      filter.check(shape.text);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (ms > worst) {
        worst = ms;
        worstName = shape.name;
      }
    }
  }
  const lines = [
    `throughput: ${checks} checks, ${(bytes / 1048576).toFixed(1)} MiB in ${seconds.toFixed(2)} s (${blocked} blocked)`,
    `worst adversarial shape: ${worstName}`,
    `structural_mb_per_s=${mbPerS.toFixed(2)} worst_case_ms=${worst.toFixed(2)}`,
  ];
  console.log(lines.slice(1).join("\n"));
  recordBench(
    "structural-throughput",
    "structural filter throughput and worst case",
    "The structural filter alone over the prompts of the corpora named with `--corpus`, repeated to 64 MiB (checked one at a time), and the slowest single check among the adversarial (ReDoS-shaped) 4000-code-point inputs of fixtures/structural.",
    lines,
  );
}

await main();
