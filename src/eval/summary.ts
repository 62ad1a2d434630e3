// The completion summary of an eval run: attacks and benign cases are never pooled; unscored cases
// stay in the full-population denominators; every scored-only rate names its smaller denominator;
// a paired probe is reported per pair type, in counts only.
import type { Adjudication, CaseKind, EvalCase } from "./corpus.js";
import { percentile, rate } from "./rates.js";
import type { CaseScore, Outcome } from "./score.js";

/** What the summary needs to know about one finished case. */
export type ScoredCase = Pick<EvalCase, "kind" | "category" | "stealth" | "adjudication"> & { readonly score: CaseScore; readonly latencyMs: number };

/** The counts of one kind (attack or benign): every case, the scored and unscored ones, and the scored outcomes. */
export type KindCounts = ReturnType<typeof countKind>;
/** The rates of one kind over all its cases and over its scored ones. */
export type KindRates = ReturnType<typeof kindRates>;
/** One category's or stealth level's counts (and rates, but for a paired probe), kind by kind. */
export type GroupSummary = ReturnType<typeof group>;
/** The completion summary of an eval run: attacks and benign cases counted apart, unscored cases kept in the denominators. */
export type EvalSummary = ReturnType<typeof summarize>;

function countKind(cases: readonly ScoredCase[], kind: CaseKind) {
  const mine = cases.filter((c) => c.kind === kind);
  const cell = (what: "blocked" | "passed") => mine.filter((c) => c.score.outcome === (`${kind}_${what}` satisfies Outcome)).length;
  const scored = mine.filter((c) => c.score.scored).length;
  return {
    total: mine.length,
    scored,
    unscored: mine.length - scored,
    blocked: cell("blocked"),
    passed: cell("passed"),
  };
}

function kindRates(counts: KindCounts, kind: CaseKind) {
  return {
    blocked_of_all: rate(counts.blocked, counts.total, `${kind}_total`),
    passed_of_all: rate(counts.passed, counts.total, `${kind}_total`),
    unscored_of_all: rate(counts.unscored, counts.total, `${kind}_total`),
    blocked_of_scored: rate(counts.blocked, counts.scored, `${kind}_scored`),
  };
}

function group(cases: readonly ScoredCase[], withRates: boolean) {
  const part = (kind: CaseKind) => {
    const counts = countKind(cases, kind);
    if (counts.total === 0) return null;
    return { ...counts, rates: withRates ? kindRates(counts, kind) : null };
  };
  return { total: cases.length, attack: part("attack"), benign: part("benign") };
}

function groupBy(cases: readonly ScoredCase[], key: (c: ScoredCase) => string | null, withRates: boolean): Record<string, GroupSummary> {
  const buckets = new Map<string, ScoredCase[]>();
  for (const c of cases) {
    const k = key(c);
    if (k === null) continue;
    const bucket = buckets.get(k);
    if (bucket) bucket.push(c);
    else buckets.set(k, [c]);
  }
  // Sorted keys, built with defineProperty semantics so a category named "__proto__" is data.
  return Object.fromEntries([...buckets.keys()].sort().map((k) => [k, group(buckets.get(k) ?? [], withRates)]));
}

/** `{ <name>_p50, <name>_p95 }` of `values`. */
function percentiles<N extends string>(name: N, values: readonly number[]): Record<`${N}_p50` | `${N}_p95`, number | null> {
  return { [`${name}_p50`]: percentile(values, 0.5), [`${name}_p95`]: percentile(values, 0.95) } as Record<`${N}_p50` | `${N}_p95`, number | null>;
}

function pairCounts(cases: readonly ScoredCase[], adjudication: Adjudication) {
  const mine = cases.filter((c) => c.adjudication === adjudication);
  const blocked = mine.filter((c) => c.score.outcome === "attack_blocked" || c.score.outcome === "benign_blocked").length;
  const notBlocked = mine.filter((c) => c.score.outcome === "attack_passed" || c.score.outcome === "benign_passed").length;
  return { total: mine.length, blocked, not_blocked: notBlocked, unscored: mine.length - blocked - notBlocked };
}

/** Summarizes scored cases (see EvalSummary for the rules). */
export function summarize(cases: readonly ScoredCase[]) {
  const paired = cases.length > 0 && cases.every((c) => c.adjudication !== null);
  const attack = countKind(cases, "attack");
  const benign = countKind(cases, "benign");
  const scoredCases = cases.filter((c) => c.score.scored);
  const reasons = cases.flatMap((c) => c.score.unscoredReason ?? []).sort();
  const canaryLatencies = (list: readonly ScoredCase[]) => list.flatMap((c) => (c.score.canaryLayerLatencyMs === null ? [] : [c.score.canaryLayerLatencyMs]));
  const totals = (list: readonly ScoredCase[]) => list.map((c) => c.latencyMs);
  // The corpus loader refuses a level outside 1–5 (corpus.ts), so in a run this leaves no case out.
  const stealthKey = (c: ScoredCase) => (Number.isInteger(c.stealth) && c.stealth >= 1 && c.stealth <= 5 ? String(c.stealth) : null);
  return {
    total: cases.length,
    scored: scoredCases.length,
    unscored: cases.length - scoredCases.length,
    // Verdicts that were degraded or threw (an analysis failure alone does not count).
    degraded: cases.filter((c) => c.score.countsAsDegraded).length,
    unscored_reasons: Object.fromEntries([...new Set(reasons)].map((reason) => [reason, reasons.filter((r) => r === reason).length])),
    attack_blocked: attack.blocked,
    attack_passed: attack.passed,
    benign_blocked: benign.blocked,
    benign_passed: benign.passed,
    attack,
    benign,
    // Null for a paired probe: too few cases for rates, so counts only.
    rates: paired ? null : { attack: kindRates(attack, "attack"), benign: kindRates(benign, "benign") },
    categories: groupBy(cases, (c) => c.category, !paired),
    stealth: groupBy(paired ? [] : cases, stealthKey, true),
    paired_probe: paired ? { positive: pairCounts(cases, "positive"), benign_control: pairCounts(cases, "benign_control") } : null,
    // p50 and p95 of the total and canary-layer latencies, of every case and of the scored ones.
    latency_ms: {
      ...percentiles("total", totals(cases)),
      ...percentiles("canary_layer", canaryLatencies(cases)),
      ...percentiles("scored_total", totals(scoredCases)),
      ...percentiles("scored_canary_layer", canaryLatencies(scoredCases)),
    },
  };
}
