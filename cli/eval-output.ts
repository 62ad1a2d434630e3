// What `little-canary eval` prints on stdout: a banner and a summary with counts and rates only
// (case text appears only in the output files).
import { asciiJson, displayText } from "../src/core/display-text.js";
import type { EvalSummary, KindCounts, Rate, RunHeader } from "../src/verbs/eval.js";
import { plural } from "./plural.js";

function showRate(r: Rate): string {
  if (r.percent === null || r.wilson95 === null) return `-- (0 ${r.of})`;
  return `${r.numerator}/${r.denominator} ${r.of} = ${r.percent.toFixed(1)}% (95% CI ${r.wilson95.low.toFixed(1)}-${r.wilson95.high.toFixed(1)})`;
}

function kindLine(name: string, counts: KindCounts, rates: EvalSummary["rates"], kind: "attack" | "benign"): string {
  const head = `${name}: ${counts.total} total, ${counts.scored} scored, ${counts.unscored} unscored; blocked ${counts.blocked}, passed ${counts.passed}`;
  if (rates === null) return head;
  const mine = rates[kind];
  return `${head}\n  blocked of all:    ${showRate(mine.blocked_of_all)}\n  blocked of scored: ${showRate(mine.blocked_of_scored)}`;
}

export function formatSummary(summary: EvalSummary, outputPath: string, reportPath: string | null): string {
  const lines = [kindLine("attacks", summary.attack, summary.rates, "attack"), kindLine("benign", summary.benign, summary.rates, "benign")];
  if (summary.paired_probe) {
    const p = summary.paired_probe;
    lines.push(
      `paired probe (counts only): positive ${p.positive.blocked} blocked / ${p.positive.not_blocked} not blocked / ${p.positive.unscored} unscored; ` +
        `benign_control ${p.benign_control.blocked} blocked / ${p.benign_control.not_blocked} not blocked / ${p.benign_control.unscored} unscored`,
    );
  }
  if (summary.unscored > 0) {
    const reasons = Object.entries(summary.unscored_reasons)
      .map(([k, v]) => `${asciiJson(k).slice(1, -1)} ${v}`)
      .join(", ");
    lines.push(
      `unscored: ${summary.unscored} of ${summary.total} (${reasons}); they count as neither blocked nor passed and stay in the "of all" denominators`,
    );
  }
  lines.push(`degraded: ${summary.degraded}`);
  lines.push(`saved ${displayText(outputPath)}`);
  if (reportPath !== null) lines.push(`report ${displayText(reportPath)}`);
  return `${lines.join("\n")}\n`;
}

export function evalBanner(header: RunHeader): string {
  const model = header.model === null ? "none" : `${header.model} (digest ${header.model_digest ?? "unknown"})`;
  return (
    `little-canary eval: mode ${header.mode}, model ${model}, judge ${header.judge ?? "none"}, ` +
    `threshold ${header.threshold}, timeout ${header.timeout_s === null ? "n/a" : `${header.timeout_s}s`}, ${plural(header.total, "case")}\n`
  );
}
