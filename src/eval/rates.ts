// Rates and latency percentiles for eval summaries. A rate carries its numerator, its denominator
// and that denominator's name, plus a 95% Wilson score interval: 5 cases and 500 must never look
// alike. Percentages are rounded half-to-even to one decimal and null for a 0 denominator ("no
// data" is not 0%).
import { roundHalfEven } from "../pipeline/round.js";

/** Two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

/** A rate with its Wilson interval, numerator, denominator and what it is a rate of. */
export interface Rate {
  readonly numerator: number;
  readonly denominator: number;
  /** What the denominator counts, e.g. "attack_total" or "benign_scored". */
  readonly of: string;
  /** 100·numerator/denominator, 1 decimal place; null when the denominator is 0. */
  readonly percent: number | null;
  /** 95% Wilson score interval in percent, 1 decimal place; null when the denominator is 0. */
  readonly wilson95: { readonly low: number; readonly high: number } | null;
}

/** Wilson score interval for k successes out of n, as fractions in [0, 1]. */
export function wilsonInterval(k: number, n: number, z: number = Z95): { low: number; high: number } | null {
  if (!Number.isSafeInteger(k) || !Number.isSafeInteger(n) || k < 0 || n < 0 || k > n) throw new RangeError("wilsonInterval needs integers 0 <= k <= n");
  if (n === 0) return null;
  const p = k / n;
  const z2 = z * z;
  const scale = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / scale;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / scale;
  // Clamp float noise at the ends (k = 0 gives a low of ~1e-17 otherwise).
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** A rate of `numerator` over `denominator` with its Wilson interval; null figures when the denominator is 0. */
export function rate(numerator: number, denominator: number, of: string): Rate {
  const interval = wilsonInterval(numerator, denominator);
  return {
    numerator,
    denominator,
    of,
    percent: denominator === 0 ? null : roundHalfEven((100 * numerator) / denominator, 1),
    wilson95: interval === null ? null : { low: roundHalfEven(100 * interval.low, 1), high: roundHalfEven(100 * interval.high, 1) },
  };
}

/** Nearest-rank percentile (`sorted[max(0, ceil(p·n) − 1)]`), 1 decimal place; null when empty. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.max(0, Math.ceil(p * sorted.length) - 1);
  return roundHalfEven(sorted[Math.min(index, sorted.length - 1)] as number, 1);
}

/** Milliseconds with one decimal place (the unit of every latency in eval output). */
export function toMs1(seconds: number): number {
  return Number.isFinite(seconds) && seconds > 0 ? roundHalfEven(seconds * 1000, 1) : 0;
}
