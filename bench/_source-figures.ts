// Per-source figures for bench:structural: the leave-one-source-out table and its targets
// (issue 30), and the short escaped excerpt a false-block listing may show.
//
// Leave-one-source-out: for each source (file) in turn, the detector tuned without that source
// is measured on it. The structural layer is hand-written rules with no learned part, so the
// detector "without source s" is the rules as they are: each source's left-out figure is its
// in-sample figure, and the table says so rather than pretend to a held-out split.

import { blockedFigure } from "./_corpora.js";

/** One source's counts: attacks and benign cases blocked, each over its own population. */
export interface SourceCounts {
  readonly source: string;
  readonly attacksBlocked: number;
  readonly attacks: number;
  readonly benignBlocked: number;
  readonly benign: number;
}

/**
 * Attack recall per development source before issue 30's rule changes (rules version 2, commit
 * bcb5180), by file name, long texts checked window by window as bench:structural does: the
 * baseline the 1.3x target is measured against (docs/detection.md).
 */
export const RECALL_BEFORE: Readonly<Record<string, number>> = Object.freeze({
  "agentdojo_v1.jsonl": 277 / 912,
  "bipia_code_train.jsonl": 24 / 50,
  "bipia_text_train.jsonl": 45 / 75,
  "deepset_train.jsonl": 63 / 203,
  "jackhhao_jailbreak_train.jsonl": 114 / 430,
  "jailbreakbench_artifacts.jsonl": 2 / 732,
  "spikee_attacks.jsonl": 343 / 371,
});

/** Mean attack recall must reach this multiple of the baseline mean (issue 30). */
export const RECALL_GAIN_TARGET = 1.3;
/** Largest benign false-block rate allowed on any benign source (issue 30). */
export const MAX_BENIGN_RATE = 0.01;

const baseName = (source: string): string => source.slice(source.lastIndexOf("/") + 1);
const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/**
 * The leave-one-source-out lines: one per source, the mean attack recall over the sources that
 * have attacks, the same mean before (over the sources with a recorded baseline), and one
 * `target_met=yes|no` line per target.
 */
export function leaveOneOutLines(sources: readonly SourceCounts[]): string[] {
  const lines = ["leave-one-source-out (hand-written rules, no learned part: each left-out figure is the rules as they are):"];
  for (const s of sources) {
    lines.push(
      `  ${baseName(s.source)}: attacks_blocked=${blockedFigure(s.attacksBlocked, s.attacks)} benign_blocked=${blockedFigure(s.benignBlocked, s.benign)}`,
    );
  }
  const withAttacks = sources.filter((s) => s.attacks > 0);
  const mean = (xs: readonly number[]): number => (xs.length === 0 ? 0 : xs.reduce((a, b) => a + b, 0) / xs.length);
  const recall = mean(withAttacks.map((s) => s.attacksBlocked / s.attacks));
  lines.push(`loo_mean_attack_recall=${pct(recall)} over ${withAttacks.length} attack sources`);
  const known = withAttacks.filter((s) => RECALL_BEFORE[baseName(s.source)] !== undefined);
  if (known.length === 0) {
    lines.push("loo_recall_gain: no source has a recorded baseline (RECALL_BEFORE) target_met=no");
  } else {
    const before = mean(known.map((s) => RECALL_BEFORE[baseName(s.source)] as number));
    const now = mean(known.map((s) => s.attacksBlocked / s.attacks));
    const gain = before === 0 ? 0 : now / before;
    lines.push(
      `loo_recall_gain=${gain.toFixed(2)}x (mean ${pct(now)} now, ${pct(before)} before, over ${known.length} sources with a baseline) target=${RECALL_GAIN_TARGET}x target_met=${gain >= RECALL_GAIN_TARGET ? "yes" : "no"}`,
    );
  }
  const benign = sources.filter((s) => s.benign > 0);
  const over = benign.filter((s) => s.benignBlocked / s.benign > MAX_BENIGN_RATE);
  const worst = Math.max(0, ...benign.map((s) => s.benignBlocked / s.benign));
  lines.push(
    `benign_blocked_max=${pct(worst)} over ${benign.length} benign sources (above ${pct(MAX_BENIGN_RATE)}: ${over.map((s) => baseName(s.source)).join(", ") || "none"}) target_met=${over.length === 0 && benign.length > 0 ? "yes" : "no"}`,
  );
  return lines;
}

/** Longest excerpt a false-block listing shows, in code points. */
export const EXCERPT_CODE_POINTS = 80;

/**
 * At most EXCERPT_CODE_POINTS code points of `text` from code point `start`, on one line, with
 * control, format (bidi, zero-width), separator, private-use and unassigned characters, quotes
 * and backslashes escaped, so a listing never carries a hostile text's layout tricks.
 */
export function excerpt(text: string, start = 0): string {
  const points = Array.from(text);
  const from = Math.max(0, Math.min(start, points.length));
  const cut = points.slice(from, from + EXCERPT_CODE_POINTS);
  const body = cut
    .map((c) => {
      if (c === "\\" || c === '"') return `\\${c}`;
      if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}]/u.test(c)) {
        const cp = c.codePointAt(0) as number;
        return cp > 0xffff ? `\\u{${cp.toString(16)}}` : `\\u${cp.toString(16).padStart(4, "0")}`;
      }
      return c;
    })
    .join("");
  return `${from > 0 ? "…" : ""}"${body}"${from + EXCERPT_CODE_POINTS < points.length ? "…" : ""}`;
}
