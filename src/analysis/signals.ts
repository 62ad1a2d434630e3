// The behavioural analyzer's category table (severities, weights, hard blocks), stated once so the
// scorer, the summary order and every rule module agree; its order is the report order.
import type { Signal } from "./types.js";
import { excerptAt } from "./_text.js";

export interface SignalCategorySpec {
  /** Default severity of a signal in this category (a rule may state its own). */
  readonly severity: number;
  /** Weight used by soft scoring. */
  readonly weight: number;
  /** A signal in a hard category blocks on its own (risk 1.0). */
  readonly hard: boolean;
}

/** The analyzer's category table: severity and weight of each signal category, in report order. */
export const SIGNAL_CATEGORIES = {
  persona_shift: { severity: 0.9, weight: 0.9, hard: true },
  instruction_echo: { severity: 0.85, weight: 0.85, hard: true },
  system_prompt_leak: { severity: 0.9, weight: 0.85, hard: false },
  refusal_collapse: { severity: 0.95, weight: 1.0, hard: true },
  tool_hallucination: { severity: 0.7, weight: 0.7, hard: false },
  format_anomaly: { severity: 0.3, weight: 0.3, hard: false },
  semantic_discontinuity: { severity: 0.55, weight: 0.3, hard: false },
  attack_compliance: { severity: 0.9, weight: 0.9, hard: true },
  canary_compromise: { severity: 0.9, weight: 1.0, hard: true },
} as const satisfies Record<string, SignalCategorySpec>;

export type SignalCategory = keyof typeof SIGNAL_CATEGORIES;

/** Fixed report order (never insertion or set order, so reports are deterministic). */
export const SIGNAL_CATEGORY_ORDER: readonly SignalCategory[] = Object.keys(SIGNAL_CATEGORIES) as SignalCategory[];

/** The categories whose signal blocks outright (risk 1.0), whatever the score. */
export const HARD_BLOCK_CATEGORIES: ReadonlySet<string> = new Set<string>(SIGNAL_CATEGORY_ORDER.filter((name) => SIGNAL_CATEGORIES[name].hard));

/** Weight of a category nobody declared (for example a future analyzer's). */
const UNKNOWN_CATEGORY_WEIGHT = 0.5;

/** Default risk at or above which the analyzer blocks. */
export const DEFAULT_BLOCK_THRESHOLD = 0.6;

/** Evidence excerpts are at most this many code points. */
export const EVIDENCE_MAX_CODE_POINTS = 150;

export function categoryWeight(category: string): number {
  return Object.hasOwn(SIGNAL_CATEGORIES, category) ? SIGNAL_CATEGORIES[category as SignalCategory].weight : UNKNOWN_CATEGORY_WEIGHT;
}

/** Builds a signal whose evidence is the bounded excerpt of `text` starting at `unitIndex`. */
export function makeSignal(
  category: SignalCategory,
  description: string,
  text: string,
  unitIndex: number,
  severity: number = SIGNAL_CATEGORIES[category].severity,
): Signal {
  return {
    category,
    description,
    severity,
    evidence: excerptAt(text, unitIndex, EVIDENCE_MAX_CODE_POINTS),
  };
}
