// Bounded-concurrency map that keeps input order: results[i] always belongs to items[i], no
// matter which call finishes first, so output documents are identical for any concurrency.
// Used by `screen` and `ingest`. At most `concurrency` calls run at once; once `signal` aborts,
// no new call starts and the promise rejects with the abort reason at once: a canary call in
// flight may take minutes to time out, and an interrupted run must not wait for it.

/** Options of `mapOrdered`. */
export interface MapOrderedOptions {
  readonly concurrency: number;
  readonly signal?: AbortSignal;
  /** Called after each item completes, with the number done so far. */
  readonly onProgress?: (done: number, total: number) => void;
}

/** Maps items with at most `concurrency` calls in flight and returns the results in input order, whatever the timing. */
export async function mapOrdered<T, R>(items: readonly T[], worker: (item: T, index: number) => Promise<R>, options: MapOrderedOptions): Promise<R[]> {
  const { concurrency, signal, onProgress } = options;
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) {
    throw new RangeError("concurrency must be a positive integer");
  }
  const results = new Array<R>(items.length);
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | null = null;

  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      if (signal?.aborted) {
        failure ??= { error: signal.reason };
        return;
      }
      const index = next++;
      try {
        results[index] = await worker(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
        return;
      }
      done++;
      onProgress?.(done, items.length);
    }
  };

  const lanes = Array.from({ length: Math.min(concurrency, items.length) }, () => lane());
  if (signal) {
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      await Promise.race([Promise.all(lanes), aborted]);
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  } else {
    await Promise.all(lanes);
  }
  if (failure !== null) throw (failure as { error: unknown }).error;
  return results;
}
