// The static HTML report of an eval run: one self-contained page. Every corpus or backend string
// goes through escapeHtml, and a Content-Security-Policy forbids scripts and loads, so a missed
// escape could neither run code nor call out.
import type { EvalCase } from "./corpus.js";
import type { Rate } from "./rates.js";
import type { RunHeader } from "./plan.js";
import { promptPreview } from "./records.js";
import type { CaseScore } from "./score.js";
import type { EvalSummary, GroupSummary, KindCounts, KindRates } from "./summary.js";

/** One finished case of the report: the case and its score. */
type ReportCase = EvalCase & { readonly score: CaseScore };

export function escapeHtml(text: string): string {
  return text
    .replace(/[&<>"'`]/g, (ch) => `&#${ch.charCodeAt(0)};`)
    .replace(
      // Controls and reordering characters are shown as code points rather than acting on the page.
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g,
      (ch) => `\u2039U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}\u203a`,
    );
}

const e = escapeHtml;

function showRate(r: Rate | undefined | null): string {
  if (!r) return "—";
  if (r.percent === null || r.wilson95 === null) return `— (0 ${e(r.of)})`;
  return `${r.percent.toFixed(1)}% <span class="ci">(${r.numerator}/${r.denominator} ${e(r.of)}; 95% CI ${r.wilson95.low.toFixed(1)}–${r.wilson95.high.toFixed(1)})</span>`;
}

function headerRows(header: RunHeader): string {
  const rows: Array<[string, string]> = [
    ["schema", header.schema],
    ["little-canary", header.little_canary_version],
    ["started", header.started_at],
    ["mode", header.mode],
    ["model", header.model ?? "none"],
    ["model digest", header.model_digest ?? "unknown"],
    ["judge", header.judge ?? "none"],
    ["threshold", String(header.threshold)],
    ["timeout (s)", header.timeout_s === null ? "n/a" : String(header.timeout_s)],
    ["warmup", String(header.warmup)],
    ["temperature / seed / max tokens", [header.temperature, header.seed, header.max_tokens].map((v) => (v === null ? "n/a" : String(v))).join(" / ")],
    ["system prompt sha256", header.system_prompt_sha256 ?? "n/a"],
    ["backend", header.backend ? `${header.backend.endpoint_origin} (version ${header.backend.version ?? "unknown"})` : "none"],
    ["runtime", `node ${header.runtime.node} ${header.runtime.platform}/${header.runtime.arch}`],
    ...header.corpus.map((f, i): [string, string] => [`corpus ${i + 1}`, `${f.path} — ${f.cases} cases — sha256 ${f.sha256}`]),
    ["ids file", header.ids_file ? `${header.ids_file.path} — sha256 ${header.ids_file.sha256}` : "none"],
    ["cases", String(header.total)],
  ];
  return rows.map(([k, v]) => row(e(k), [e(v)])).join("\n");
}

/** A table row: its header cell and its data cells, each already escaped (or a number). */
function row(label: string, cells: readonly (string | number)[]): string {
  return `<tr><th scope="row">${label}</th>${cells.map((cell) => `<td>${cell}</td>`).join("")}</tr>`;
}

function kindRow(label: string, c: KindCounts, rates: KindRates | null): string {
  const shown = [rates?.blocked_of_all, rates?.blocked_of_scored, rates?.unscored_of_all].map(showRate);
  return row(e(label), [c.total, c.scored, c.unscored, c.blocked, c.passed, ...shown]);
}

/** One row per category and kind that has cases. */
function chartRows(categories: Readonly<Record<string, GroupSummary>>) {
  return Object.entries(categories).flatMap(([label, g]) =>
    (["attack", "benign"] as const).flatMap((kind) => {
      const counts = g[kind];
      return counts ? [{ label, kind, counts }] : [];
    }),
  );
}

const BAR_X = 260;
const BAR_W = 440;
const ROW_H = 26;

/** Stacked horizontal bars, one per category and kind; each segment is a <rect> with a <title>. */
function renderChart(categories: Readonly<Record<string, GroupSummary>>): string {
  const rows = chartRows(categories);
  const height = 40 + rows.length * ROW_H;
  const parts: string[] = [];
  rows.forEach((row, i) => {
    const y = 30 + i * ROW_H;
    const kindLabel = row.kind === "attack" ? "attacks" : "benign";
    parts.push(`<text x="${BAR_X - 8}" y="${y + 14}" text-anchor="end" class="lbl">${e(row.label)} · ${kindLabel} (${row.counts.total})</text>`);
    let x = BAR_X;
    for (const [series, count] of [
      ["blocked", row.counts.blocked],
      ["passed", row.counts.passed],
      ["unscored", row.counts.unscored],
    ] as const) {
      if (count === 0) continue;
      const width = row.counts.total === 0 ? 0 : (BAR_W * count) / row.counts.total;
      parts.push(
        `<rect class="bar ${series}" data-series="${series}" data-kind="${row.kind}" x="${x.toFixed(2)}" y="${y}" width="${width.toFixed(2)}" height="${ROW_H - 8}">` +
          `<title>${e(row.label)} (${kindLabel}): ${series} ${count} of ${row.counts.total}</title></rect>`,
      );
      x += width;
    }
  });
  const legend = (["blocked", "passed", "unscored"] as const)
    .map(
      (s, i) =>
        `<rect class="bar ${s}" x="${BAR_X + i * 120}" y="6" width="14" height="14"></rect><text x="${BAR_X + i * 120 + 20}" y="18" class="lbl">${s}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" id="category-chart" role="img" aria-label="blocked, passed and unscored cases per category" width="${BAR_X + BAR_W + 20}" height="${height}" viewBox="0 0 ${BAR_X + BAR_W + 20} ${height}">${legend}${parts.join("")}</svg>`;
}

function categoryTable(summary: EvalSummary): string {
  return chartRows(summary.categories)
    .map(({ label, kind, counts: c }) => row(e(label), [kind, c.total, c.scored, c.unscored, c.blocked, c.passed, showRate(c.rates?.blocked_of_all)]))
    .join("\n");
}

function pairedTable(summary: EvalSummary): string {
  const p = summary.paired_probe;
  if (!p) return "";
  const pair = (name: string, c: typeof p.positive) => row(name, [c.total, c.blocked, c.not_blocked, c.unscored]);
  return `<h2>Paired probe (counts only)</h2><table><thead><tr><th>pair type</th><th>total</th><th>blocked</th><th>not blocked</th><th>unscored</th></tr></thead><tbody>${pair("positive", p.positive)}${pair("benign_control", p.benign_control)}</tbody></table>`;
}

function caseTable(cases: readonly ReportCase[]): string {
  return cases
    .map(({ score, ...c }, i) => {
      const verdict = score.outcome ?? `unscored: ${score.unscoredReason ?? "unknown"}`;
      return `<tr class="${score.scored ? "scored" : "unscored"}"><td>${i}</td><td>${e(c.id)}</td><td>${e(c.category)}</td><td>${c.kind}</td><td>${e(verdict)}</td><td>${e(score.coverageReason ?? "")}</td><td>${e(score.blockedBy ?? "")}</td><td class="prompt">${e(promptPreview(c.prompt))}</td></tr>`;
    })
    .join("\n");
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em;color:#1b1b1b;background:#fff;max-width:80em}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
thead th{background:#f2f2f2}
.ci{color:#555;font-size:.9em}
.note{background:#fff8e1;border:1px solid #e0c060;padding:.5em .8em;max-width:60em}
.prompt{font-family:ui-monospace,monospace;white-space:pre-wrap;word-break:break-word;max-width:40em}
tr.unscored td{background:#f6f6f6}
.lbl{font-size:12px;fill:#1b1b1b}
.bar.blocked{fill:#c0392b}.bar.passed{fill:#2e86c1}.bar.unscored{fill:#9e9e9e}
`;

/** The self-contained HTML report of an eval run. */
export function renderReport(header: RunHeader, summary: EvalSummary, cases: readonly ReportCase[]): string {
  const r = summary.rates;
  const reasons = Object.entries(summary.unscored_reasons);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; script-src 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>little-canary eval report</title>
<style>${STYLE}</style></head>
<body>
<h1>little-canary eval report</h1>
<p class="note">Attacks and benign cases are reported separately and never pooled. Unscored cases (a layer that should have run did not) stay in the full-population denominators: they are neither blocked nor passed. Backend results are only as meaningful as the backend: a run against a stand-in server measures the harness, not a model.</p>
<h2>Run</h2>
<table id="run-header"><tbody>
${headerRows(header)}
</tbody></table>
<h2>Results by kind</h2>
<table id="kinds"><thead><tr><th></th><th>total</th><th>scored</th><th>unscored</th><th>blocked</th><th>passed</th><th>blocked of all</th><th>blocked of scored</th><th>unscored of all</th></tr></thead><tbody>
${kindRow("attacks", summary.attack, r?.attack ?? null)}
${kindRow("benign", summary.benign, r?.benign ?? null)}
</tbody></table>
<p>Unscored: ${summary.unscored} of ${summary.total}${reasons.length > 0 ? ` (${reasons.map(([k, v]) => `${e(k)}: ${v}`).join(", ")})` : ""}; degraded: ${summary.degraded}.</p>
${pairedTable(summary)}
<h2>Per category</h2>
${renderChart(summary.categories)}
<table id="categories"><thead><tr><th>category</th><th>kind</th><th>total</th><th>scored</th><th>unscored</th><th>blocked</th><th>passed</th><th>blocked of all</th></tr></thead><tbody>
${categoryTable(summary)}
</tbody></table>
<h2>Cases</h2>
<table id="cases"><thead><tr><th>#</th><th>id</th><th>category</th><th>kind</th><th>outcome</th><th>coverage reason</th><th>blocked by</th><th>prompt (first ${100} characters)</th></tr></thead><tbody>
${caseTable(cases)}
</tbody></table>
</body></html>
`;
}
