// Structural-filter decision benchmark over evaluation corpora given on the command line
// (no model involved):
//   npm run bench:structural -- --corpus <file> [--corpus <file> ...] [--write-doc]
// Prints per-category block counts for each corpus, attacks and benign cases separately (never
// pooled), then one summary line per corpus and one over all of them:
//   <file>: attacks_blocked=X/N benign_blocked=Y/M
//   total: attacks_blocked=X/N benign_blocked=Y/M
// Blocked benign cases are listed by id (never by text), since any is a false positive.

import { StructuralFilter } from "../src/structural/index.js";
import type { EvalCase } from "../src/eval/corpus.js";
import { loadCorporaFromArgs } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";

const USAGE = "npm run bench:structural -- --corpus ../shared/corpora/prompts.json --corpus ../shared/corpora/prompts_fp_realistic.json [--write-doc]";

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

function count(blocked: ReadonlySet<EvalCase>, cases: readonly EvalCase[]): string {
  return `${cases.filter((c) => blocked.has(c)).length}/${cases.length}`;
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
        print(`  ${category.padEnd(24)} ${t.blocked}/${t.total} blocked`);
      }
    }
    const falsePositives = benign.filter((c) => blocked.has(c)).map((c) => c.id);
    if (falsePositives.length > 0) print(`  blocked benign ids: ${falsePositives.join(", ")}`);
    summaries.push(`${file.path}: attacks_blocked=${count(blocked, attacks)} benign_blocked=${count(blocked, benign)}`);
  });
  for (const line of summaries) print(line);
  const attacks = loaded.cases.filter((c) => c.kind === "attack");
  const benign = loaded.cases.filter((c) => c.kind === "benign");
  print(`total: attacks_blocked=${count(blocked, attacks)} benign_blocked=${count(blocked, benign)}`);
  recordBench(
    "structural",
    "structural layer on the evaluation corpora",
    "Decisions of the structural filter alone on the corpora named with `--corpus` (attacks and benign cases counted separately, never pooled). These are tuning corpora: the rules are general, not fitted to these cases.",
    printed,
  );
}

await main();
