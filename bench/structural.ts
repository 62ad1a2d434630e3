// Structural-filter decision benchmark over evaluation corpora given on the command line
// (no model involved):
//   npm run bench:structural -- --corpus <file> [<file> ...] [--write-doc]
// Files are development sets (`*.jsonl`, one `{"id","text","attack","category"}` per line) or
// JSON case arrays (see bench/_corpora.ts). Each file is a set of its own: its attacks and its
// benign cases are counted separately, each with a 95% Wilson interval over its own population,
// and no figure is ever pooled across sets or across attacks and benign cases. Per set it prints
// the per-category counts, the ids (never the text) of blocked benign cases, and one line
//   <file>: attacks_blocked=X/N (P% [L–H]) benign_blocked=Y/M (P% [L–H])
// where a population the set does not have prints as "-".

import { StructuralFilter } from "../src/structural/filter.js";
import type { EvalCase } from "../src/eval/corpus.js";
import { blockedFigure, loadCorporaFromArgs } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";

const USAGE = "npm run bench:structural -- --corpus ../shared/corpora/dev/*.jsonl ../shared/corpora/prompts.json [--write-doc]";

/** Every line this run printed, for docs/performance.md. */
const printed: string[] = [];
function print(line: string): void {
  printed.push(line);
  console.log(line);
}

interface Tally {
  blocked: number;
  total: number;
}

function tallyByCategory(blocked: ReadonlySet<EvalCase>, cases: readonly EvalCase[]): Map<string, Tally> {
  const byCategory = new Map<string, Tally>();
  for (const c of cases) {
    const t = byCategory.get(c.category) ?? { blocked: 0, total: 0 };
    t.total++;
    if (blocked.has(c)) t.blocked++;
    byCategory.set(c.category, t);
  }
  return byCategory;
}

function figure(blocked: ReadonlySet<EvalCase>, cases: readonly EvalCase[]): string {
  return blockedFigure(cases.filter((c) => blocked.has(c)).length, cases.length);
}

async function main(): Promise<void> {
  const loaded = await loadCorporaFromArgs("structural", USAGE);
  const filter = new StructuralFilter();
  const blocked = new Set(loaded.cases.filter((c) => filter.check(c.prompt).blocked));
  const summaries: string[] = [];
  loaded.files.forEach((file, index) => {
    const cases = loaded.cases.filter((c) => c.corpusIndex === index);
    const attacks = cases.filter((c) => c.kind === "attack");
    const benign = cases.filter((c) => c.kind === "benign");
    for (const [title, group] of [
      ["attacks", attacks],
      ["benign", benign],
    ] as const) {
      if (group.length === 0) continue;
      print(`${file.path} ${title}:`);
      for (const [category, t] of [...tallyByCategory(blocked, group)].sort(([a], [b]) => a.localeCompare(b))) {
        print(`  ${category.padEnd(40)} ${t.blocked}/${t.total} blocked`);
      }
    }
    const falsePositives = benign.filter((c) => blocked.has(c)).map((c) => c.id);
    if (falsePositives.length > 0) print(`  blocked benign ids: ${falsePositives.join(", ")}`);
    summaries.push(`${file.path}: attacks_blocked=${figure(blocked, attacks)} benign_blocked=${figure(blocked, benign)}`);
  });
  for (const line of summaries) print(line);
  recordBench(
    "structural",
    "structural layer on the evaluation corpora",
    "Decisions of the structural filter alone on the corpora named with `--corpus`, per file: attacks and benign cases counted separately with 95% Wilson intervals, each over its own population, never pooled. These are development sets (tuning data), not held-out results; see docs/detection.md.",
    printed,
  );
}

await main();
