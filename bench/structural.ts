// Structural-filter decision benchmark over evaluation corpora given on the command line
// (no model involved):
//   npm run bench:structural -- --corpus <file> [<file> ...] [--leave-one-out] [--show-false-blocks] [--write-doc]
// Files are development sets (`*.jsonl`, one `{"id","text","attack","category"}` per line) or
// JSON case arrays (see bench/_corpora.ts). Each file is a set of its own: its attacks and its
// benign cases are counted separately, each with a 95% Wilson interval over its own population,
// and no figure is ever pooled across sets or across attacks and benign cases. Per set it prints
// the per-category counts, the ids (never the text) of blocked benign cases, and one line
//   <file>: attacks_blocked=X/N (P% [L–H]) benign_blocked=Y/M (P% [L–H])
// where a population the set does not have prints as "-".
// A text longer than the filter's 4000 code points is checked window by window, the way the
// pipeline screens it (length is never a detection, src/pipeline/base.ts): windows of 4000 code
// points overlapping by 500 (the pipeline's defaults), blocked when any window is.
// `--leave-one-out` adds the leave-one-source-out table, its mean attack recall and the
// `target_met=yes|no` lines of issue 30 (bench/_source-figures.ts). `--show-false-blocks` lists
// every blocked benign case: its id, its reasons and an escaped excerpt of at most 80 code points
// from a little before where the first reason matched, never the whole text.

import { codePointLength } from "../src/core/codepoints.js";
import { sliceSpans } from "../src/documents/segment-plan.js";
import { segmentSpans } from "../src/documents/segment-spans.js";
import { StructuralFilter } from "../src/structural/filter.js";
import type { EvalCase } from "../src/eval/corpus.js";
import { blockedFigure, loadCorporaFromArgs } from "./_corpora.js";
import { recordBench } from "./_perf-doc.js";
import { excerpt, leaveOneOutLines, type SourceCounts } from "./_source-figures.js";

const USAGE =
  "npm run bench:structural -- --corpus ../shared/corpora/dev/*.jsonl ../shared/corpora/prompts.json [--leave-one-out] [--show-false-blocks] [--write-doc]";

/** The pipeline's default window overlap for the filter's default 4000-code-point limit (src/canary/pipeline-options.ts). */
const WINDOW_OVERLAP = 500;

/** What the structural layer found in one text: its reasons, and where (code points) the first matched. */
interface Finding {
  readonly blocked: boolean;
  readonly reasons: readonly string[];
  readonly firstAt: number;
}

/** The filter's findings on `text`, window by window when it is longer than the filter takes, as the pipeline screens it. */
function findings(filter: StructuralFilter, text: string): Finding {
  const length = text.length <= filter.maxInputLength ? text.length : codePointLength(text);
  const spans = length <= filter.maxInputLength ? [{ start: 0, end: length }] : segmentSpans(length, filter.maxInputLength, WINDOW_OVERLAP);
  const slices = spans.length === 1 ? [text] : sliceSpans(text, spans);
  const reasons = new Set<string>();
  let firstAt = -1;
  spans.forEach((span, i) => {
    const result = filter.check(slices[i] as string);
    for (const r of result.reasons) reasons.add(r);
    if (firstAt < 0 && result.blocked) firstAt = span.start + (result.matches[0]?.locations[0]?.start ?? 0);
  });
  return { blocked: reasons.size > 0, reasons: [...reasons], firstAt: Math.max(0, firstAt) };
}

/** Code points of context shown before where a false block's first reason matched. */
const EXCERPT_LEAD = 20;

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
  const argv = process.argv.slice(2);
  const filter = new StructuralFilter();
  const results = new Map<EvalCase, Finding>();
  for (const c of loaded.cases) results.set(c, findings(filter, c.prompt));
  const blocked = new Set(loaded.cases.filter((c) => results.get(c)?.blocked === true));
  const summaries: string[] = [];
  const counts: SourceCounts[] = [];
  const falseBlocks: string[] = [];
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
    counts.push({
      source: file.path,
      attacksBlocked: attacks.filter((c) => blocked.has(c)).length,
      attacks: attacks.length,
      benignBlocked: falsePositives.length,
      benign: benign.length,
    });
    for (const c of benign.filter((b) => blocked.has(b))) {
      const found = results.get(c) as Finding;
      falseBlocks.push(`  ${file.path} ${c.id}: ${found.reasons.join(" | ")}`, `    ${excerpt(c.prompt, Math.max(0, found.firstAt - EXCERPT_LEAD))}`);
    }
    summaries.push(`${file.path}: attacks_blocked=${figure(blocked, attacks)} benign_blocked=${figure(blocked, benign)}`);
  });
  for (const line of summaries) print(line);
  if (argv.includes("--show-false-blocks")) {
    print(`false blocks (every blocked benign case: id, reasons, escaped excerpt): ${falseBlocks.length / 2}`);
    for (const line of falseBlocks) print(line);
  }
  if (argv.includes("--leave-one-out")) for (const line of leaveOneOutLines(counts)) print(line);
  recordBench(
    "structural",
    "structural layer on the evaluation corpora",
    "Decisions of the structural filter alone on the corpora named with `--corpus`, per file: attacks and benign cases counted separately with 95% Wilson intervals, each over its own population, never pooled. These are development sets (tuning data), not held-out results; see docs/detection.md.",
    printed,
  );
}

await main();
