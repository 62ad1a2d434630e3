// How many items each canary failure reason held over a run, for the one warning line a run
// earns: the line names the most common reason (and its fix), and lists every reason with its
// count when there was more than one, so "(output_limit) for 5 records" never stands for five
// records of which four failed otherwise.

/** Each reason and how many items it held, most first (ties in the order first seen). */
export type ReasonCounts<R extends string = string> = ReadonlyArray<readonly [reason: R, count: number]>;

/** Counts reasons as items report them. */
export class ReasonTally<R extends string = string> {
  readonly #counts = new Map<R, number>();

  /** One more item held for `reason`. */
  add(reason: R): void {
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
  }

  /** The reasons seen, most first; empty when none. */
  counts(): ReasonCounts<R> {
    // Array.prototype.sort is stable: equal counts keep the order they were first seen in.
    return [...this.#counts].sort((a, b) => b[1] - a[1]);
  }
}

/** `http_error 3, output_limit 1`: every reason with its count. */
export function reasonList(counts: ReasonCounts): string {
  return counts.map(([reason, count]) => `${reason} ${count}`).join(", ");
}

/** ` (http_error 3, output_limit 1)` when more than one reason was seen, else nothing. */
export function reasonBreakdown(counts: ReasonCounts): string {
  return counts.length < 2 ? "" : ` (${reasonList(counts)})`;
}
