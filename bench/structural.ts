// Structural-filter decision benchmark over the shared corpora (no model involved).
// Prints per-category block counts, then exactly one summary line:
//   attacks_blocked=X/N safe_blocked=Y/M fp_realistic_blocked=Z/K
// Attack and safe counts are reported separately, never pooled (corpora README).

import { StructuralFilter } from "../src/structural/index.js";
import { loadCorpus, type CorpusCase } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";

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

function tallyByCategory(filter: StructuralFilter, cases: readonly CorpusCase[]): Map<string, Tally> {
  const byCategory = new Map<string, Tally>();
  for (const c of cases) {
    const t = byCategory.get(c.category) ?? { blocked: 0, total: 0 };
    t.total++;
    if (filter.check(c.prompt).blocked) t.blocked++;
    byCategory.set(c.category, t);
  }
  return byCategory;
}

function sum(tallies: Iterable<Tally>): Tally {
  let blocked = 0;
  let total = 0;
  for (const t of tallies) {
    blocked += t.blocked;
    total += t.total;
  }
  return { blocked, total };
}

function main(): void {
  const filter = new StructuralFilter();
  const prompts = loadCorpus("prompts.json");
  const attacks = tallyByCategory(filter, prompts.filter((c) => !c.expected_safe));
  const safe = tallyByCategory(filter, prompts.filter((c) => c.expected_safe));
  const fp = tallyByCategory(filter, loadCorpus("prompts_fp_realistic.json"));

  for (const [title, table] of [["prompts.json attacks", attacks], ["prompts.json safe", safe], ["prompts_fp_realistic.json", fp]] as const) {
    print(`${title}:`);
    for (const [category, t] of [...table].sort(([a], [b]) => a.localeCompare(b))) {
      print(`  ${category.padEnd(24)} ${t.blocked}/${t.total} blocked`);
    }
  }
  const a = sum(attacks.values());
  const s = sum(safe.values());
  const f = sum(fp.values());
  print(`attacks_blocked=${a.blocked}/${a.total} safe_blocked=${s.blocked}/${s.total} fp_realistic_blocked=${f.blocked}/${f.total}`);
  recordBench(
    "structural",
    "structural layer on the evaluation corpora",
    "Decisions of the structural filter alone on ../shared/corpora/prompts.json (attacks and safe/mixed cases, counted separately) and prompts_fp_realistic.json (benign hard negatives). These are tuning corpora: the rules are general, not fitted to these cases.",
    printed,
  );
}

main();
